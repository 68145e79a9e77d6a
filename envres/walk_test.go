package envres

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestFindScripts(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"run.sh":                     "echo\n",
		"lib/helper.bash":            "echo\n",
		"bin/start":                  "#!/usr/bin/env bash\nexec x\n",
		"bin/tool":                   "#!/usr/bin/python3\n",
		"bin/noshebang":              "echo hi there\n",
		"conf.yaml":                  "a: 1\n",
		"z/prompt.zsh":               "echo\n",
		"z/zscript":                  "#!/bin/zsh\necho\n",
		"t/a.bats":                   "@test x { true; }\n",
		".git/hooks/pre-commit.sh":   "echo\n",
		".hidden.sh":                 "echo\n",
		"node_modules/x/install.sh":  "echo\n",
		"vendor/y/build.sh":          "echo\n",
		"deploy/k8s/entrypoint.sh":   "echo\n",
		"deploy/k8s/start-dash":      "#!/bin/dash\necho\n",
		"scripts/third_party/foo.sh": "echo\n",
	}
	for n, b := range files {
		p := filepath.Join(dir, n)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(b), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	os.Symlink(filepath.Join(dir, "run.sh"), filepath.Join(dir, "link.sh"))
	got, err := FindScripts(dir)
	if err != nil {
		t.Fatal(err)
	}
	for i := range got {
		got[i], _ = filepath.Rel(dir, got[i])
	}
	want := []string{"bin/start", "deploy/k8s/entrypoint.sh", "deploy/k8s/start-dash", "lib/helper.bash", "run.sh"}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("FindScripts (-want +got):\n%s", d)
	}
}

// TestArithFallback: "((" and "$((" that bash reads as nested subshells
// parse, and the file is linted; a real error is still a parse error.
func TestArithFallback(t *testing.T) {
	const sh = "#!/bin/bash\n"
	runLintCases(t, []lintCase{
		{"(( … ) &)", map[string]string{"run.sh": sh + "((sleep 10s; touch /tmp/x) &)\nexec sudo ./api\n"}, Config{KeepGoing: true},
			[]at{{"env-reset", "run.sh", 3, ""}}},
		{"$(( … ) | …)", map[string]string{"run.sh": sh + "V=$((echo 1; echo 2) | sort -V | tail -1)\nexec sudo ./api\n"}, Config{KeepGoing: true},
			[]at{{"env-reset", "run.sh", 3, ""}}},
		{"arithmetic stays arithmetic", map[string]string{"run.sh": sh + "(( i = 1 + 2 ))\nexec sudo ./api\n"}, Config{KeepGoing: true},
			[]at{{"env-reset", "run.sh", 3, ""}}},
		{"a real error", map[string]string{"run.sh": sh + "echo (( x\n"}, Config{KeepGoing: true},
			[]at{{"parse-error", "run.sh", 2, ""}}},
	})
}
