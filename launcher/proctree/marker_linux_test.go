package proctree

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReadEnviron: the marker scan's reader returns the whole block,
// whatever its size against the buffer it starts with, and an error for
// a file it cannot open.
func TestReadEnviron(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		name string
		size int
		buf  int
	}{
		{"empty", 0, 16},
		{"smaller than the buffer", 10, 16},
		{"exactly the buffer", 16, 16},
		{"several times the buffer", 100_000, 16},
	} {
		t.Run(tc.name, func(t *testing.T) {
			want := bytes.Repeat([]byte("A=1\x00"), tc.size/4+1)[:tc.size]
			path := filepath.Join(dir, strings.ReplaceAll(tc.name, " ", "-"))
			if err := os.WriteFile(path, want, 0o600); err != nil {
				t.Fatal(err)
			}
			buf := make([]byte, tc.buf)
			got, err := readEnviron(path, &buf)
			if err != nil || !bytes.Equal(got, want) {
				t.Fatalf("readEnviron = %d bytes, %v; want %d bytes", len(got), err, len(want))
			}
		})
	}
	buf := make([]byte, 16)
	if _, err := readEnviron(filepath.Join(dir, "missing"), &buf); err == nil {
		t.Error("readEnviron of a missing file: no error")
	}
}
