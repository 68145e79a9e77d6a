package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestStaticScript: the scripts that run childproof without -race are the
// ones whose childproof only reads and prints.
func TestStaticScript(t *testing.T) {
	for _, tc := range []struct {
		script string
		want   bool
	}{
		{"exec childproof check spec.hcl\nstdout 'ok'\n-- spec.hcl --\nexec childproof run x\n", true},
		{"! exec childproof lint --format json run.sh\n[root] exec childproof --version\n", true},
		{"exec childproof run --detach spec.hcl\n", false},
		{"exec childproof --state-dir $WORK/s ps\n", false},
		{"exec childproof check spec.hcl &bg&\n", false},
		{"exec childproof lint x.sh\nkill bg\n", false},
		{"exec sh -c 'childproof check spec.hcl >/dev/null; echo exit=$?'\n", true},
		{"exec sh -c 'childproof run spec.hcl'\n", false},
		{"exec sh -c 'test -x vol/childproof && echo ok'\n", false},
		{"exec childproof frobnicate\n", false},
		{"# exec childproof run in a comment\nexec childproof export --to systemd a.hcl\n", true},
	} {
		if got := staticScript(tc.script); got != tc.want {
			t.Errorf("staticScript(%q) = %v, want %v", tc.script, got, tc.want)
		}
	}
	var static []string
	scripts, _ := filepath.Glob("testdata/script/*.txtar")
	for _, f := range scripts {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if staticScript(string(b)) {
			static = append(static, strings.TrimSuffix(filepath.Base(f), ".txtar"))
		}
	}
	t.Logf("%d of %d scripts are static: %s", len(static), len(scripts), strings.Join(static, " "))
}
