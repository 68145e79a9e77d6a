package atomicfile

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestWrite(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "spec.hcl")
	for _, data := range []string{"first\n", "second, longer\n"} {
		if err := Write(path, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(data, string(got)); diff != "" {
			t.Errorf("content (-want +got):\n%s", diff)
		}
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o644 {
		t.Errorf("mode %v, want 0644", fi.Mode().Perm())
	}
	// No temporary file is left.
	ents, _ := os.ReadDir(dir)
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	if diff := cmp.Diff([]string{"spec.hcl"}, names); diff != "" {
		t.Errorf("dir (-want +got):\n%s", diff)
	}
	if err := Write(filepath.Join(dir, "missing", "x"), nil, 0o644); err == nil {
		t.Error("Write into a missing directory: no error")
	}
}
