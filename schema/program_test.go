package schema

import (
	"github.com/childproof/childproof/internal/specrule"
	"os"
	"path/filepath"
	"testing"
)

func TestLookPath(t *testing.T) {
	if specrule.Executable(0o644) {
		t.Skip("no execute bits on this system")
	}
	dir := t.TempDir()
	for _, f := range []struct {
		name string
		mode os.FileMode
	}{{"bin/srv", 0o755}, {"bin/data", 0o644}, {"other/srv", 0o755}} {
		p := filepath.Join(dir, f.name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("#!/bin/sh\n"), f.mode); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.MkdirAll(filepath.Join(dir, "d", "srv"), 0o755); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		prog, path string
		want       string
		ok         bool
	}{
		{"srv", "bin", filepath.Join(dir, "bin/srv"), true},                                         // relative to dir
		{"srv", "d:" + filepath.Join(dir, "other") + ":bin", filepath.Join(dir, "other/srv"), true}, // a directory is skipped
		{"data", "bin", "", false}, // not executable
		{"childproof-no-such-program", "bin", "", false},
	}
	for _, tt := range tests {
		got, ok := LookPath(tt.prog, tt.path, dir)
		if got != tt.want || ok != tt.ok {
			t.Errorf("LookPath(%q, %q) = %q, %v; want %q, %v", tt.prog, tt.path, got, ok, tt.want, tt.ok)
		}
	}
	if got, ok := LookPath("sh", "", dir); !ok || !filepath.IsAbs(got) {
		t.Errorf("LookPath(sh) on no PATH of the launch's = %q, %v; want the caller's sh", got, ok)
	}
}
