package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

// TestPreCommitHooks reads the repository's .pre-commit-hooks.yaml as
// pre-commit does (a list of hooks with id, name, entry and language, the
// keys pre-commit requires) and runs its entry the way pre-commit calls
// it — entry, then the hook's args, then the staged file names — on a
// clean and on a clobbering script.
func TestPreCommitHooks(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("..", "..", ".pre-commit-hooks.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var hooks []struct {
		ID       string   `json:"id"`
		Name     string   `json:"name"`
		Entry    string   `json:"entry"`
		Language string   `json:"language"`
		Types    []string `json:"types"`
	}
	if err := yaml.Unmarshal(src, &hooks); err != nil {
		t.Fatal(err)
	}
	if len(hooks) != 1 {
		t.Fatalf("%d hooks, want 1", len(hooks))
	}
	h := hooks[0]
	if h.ID != "childproof-lint" || h.Name == "" || h.Language != "golang" || len(h.Types) == 0 {
		t.Fatalf("hook %+v: want id childproof-lint, a name, language golang (pre-commit builds it), types", h)
	}
	words := strings.Fields(h.Entry)
	if len(words) < 2 || words[0] != "childproof" {
		t.Fatalf("entry %q does not run childproof", h.Entry)
	}
	dir := t.TempDir()
	write := func(name, text string) string {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o755); err != nil {
			t.Fatal(err)
		}
		return name // pre-commit runs in the repository's root with relative names
	}
	write(".env", "TOKEN=fromfile\n")
	clean := write("clean.sh", "#!/bin/bash\nexec ./server\n")
	bad := write("bad.sh", "#!/bin/bash\nset -a; . ./.env; set +a\nexec ./server\n")
	t.Chdir(dir)
	for _, tc := range []struct {
		files []string
		code  int
	}{{[]string{clean}, 0}, {[]string{clean, bad}, 1}} {
		args := append(append(append([]string(nil), words[1:]...), "--override", "TOKEN=ovr"), tc.files...)
		var stdout, stderr bytes.Buffer
		if code := run(context.Background(), args, nil, &stdout, &stderr); code != tc.code {
			t.Errorf("%s: exit %d, want %d\n%s%s", strings.Join(args, " "), code, tc.code, stdout.String(), stderr.String())
		}
	}
}
