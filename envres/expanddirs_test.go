package envres

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestExpandDirs(t *testing.T) {
	dir := t.TempDir()
	for name, body := range map[string]string{
		"top.sh":             "echo top\n",
		"scripts/a.sh":       "echo a\n",
		"scripts/sub/b.bash": "echo b\n",
		"scripts/notes.txt":  "not a script\n",
		"scripts/run":        "#!/bin/sh\necho run\n",
		"scripts/.hidden.sh": "echo hidden\n",
	} {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		name    string
		dir     string
		scripts []string
		want    []string
	}{
		{"files stay", dir, []string{"top.sh", "missing.sh"}, []string{"top.sh", "missing.sh"}},
		{"a directory as typed", dir, []string{"scripts", "top.sh"}, []string{"scripts/a.sh", "scripts/run", "scripts/sub/b.bash", "top.sh"}},
		{"absolute directory", "", []string{filepath.Join(dir, "scripts", "sub")}, []string{filepath.Join(dir, "scripts", "sub", "b.bash")}},
		{"trailing slash", dir, []string{"scripts/sub/"}, []string{"scripts/sub/b.bash"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ExpandDirs(tc.dir, tc.scripts)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("ExpandDirs (-want +got):\n%s", diff)
			}
		})
	}
}
