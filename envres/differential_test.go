package envres

import (
	"bytes"
	"context"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// diffStmts are straight-line statements whose effect on X bash decides
// deterministically; the analysis must agree with bash on whether the
// worker (printenv) gets X=ovr.
var diffStmts = []string{
	"export X=ovr", "export X=other", "X=other", "X=ovr", "unset X", "export -n X", "export X",
	"set -a", "set +a", "set -o allexport", "set +o allexport",
	". ./a.env", ". ./b.env", ". ./c.env", "source ./a.env",
	"S=$X", "X=$S", "export X=\"$S\"", "T=$S",
	"( export X=other )", "( unset X )", "f", "g", "h",
	": \"${X:=dflt}\"", "export $(cat a.env | xargs)", "eval \"$(cat a.env)\"", "eval \"$(cat b.env)\"",
	"env X=other true", "X=other true", "{ export X=ovr; }", "declare -x X=other", "declare +x X",
	"export X+=", "local_f", "export X+=x", "readonly R=1", "typeset -x X=ovr", "declare X=other",
	"bash -c 'export X=other'", "X=other bash -c true", "while read -r l; do export \"$l\"; done < a.env",
	"source <(cat a.env)", "[ -n \"$X\" ] && export X=ovr", "true || export X=other", "false && unset X",
	"if true; then export X=ovr; fi", "for v in 1 2; do export X=ovr; done", ". ./d.sh", "set -- a b", "shift",
	"X=${X:-dflt}", "export X=${X}", "unset -v X", "unset -f X", "set -xa", "set +x", "[ -z \"$X\" ] && export X=other", "exec bash ./child1.sh", "exec bash ./child2.sh", "exec ./child2.sh",
	"exec env -u X printenv", "exec env X=ovr printenv", "exec env X=other printenv", ". ./lib.sh", "r", "sh -c 'unset X'",
	"exec bash -c 'set -a; . ./a.env; exec printenv'", "cd sub && . ./e.env; cd ..",
	"exec env $(cat a.env) printenv", "exec env $(cat b.env) printenv", "source <(cat b.env)", "export $(cat b.env | xargs)",
	"while read -r l; do eval \"$l\"; done < b.env", "set -a; g; set +a", "export Y", "unset Y", "export -n Y",
	"exec env -i printenv", "exec -c printenv", "exec env -i X=ovr printenv", "exec env - PATH=/bin printenv", "[ \"$X\" = ovr ] || export X=other", "test -n \"$X\" || unset X",
	"for kv in $(cat a.env); do export \"$kv\"; done", "for kv in $(cat b.env); do export \"$kv\"; done",
	"mapfile -t L < a.env; for l in \"${L[@]}\"; do export \"$l\"; done", "L=($(cat a.env)); for l in \"${L[@]}\"; do export \"$l\"; done",
	"while IFS='=' read -r k v; do [[ -z \"${!k}\" ]] && export \"$k=$v\"; done < a.env",
	"while IFS='=' read -r k v; do [ -z \"$(eval echo \\$$k)\" ] && export \"$k=$v\"; done < a.env",
	"while IFS='=' read -r k v; do [ -z \"${!k+x}\" ] && export \"$k=$v\"; done < a.env",
	"while IFS='=' read -r k v; do printf -v \"$k\" %s \"$v\"; export \"$k\"; done < a.env",
	"export X=${X:-dflt}", "X=${X-dflt}", "export X=\"$X\"", "exec env -i X=\"$X\" printenv", "exec env -i PATH=\"$PATH\" printenv",
}

const diffPrelude = `f() { export X=other; }
g() { . ./a.env; }
h() { export X=ovr; }
local_f() { local X=other; }
r() { return; export X=other; }
`

func TestDifferentialBash(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("bash not installed")
	}
	dir := t.TempDir()
	files := map[string]string{"a.env": "X=fromfile\nY=1\n", "b.env": "Y=2\n", "c.env": "export X=ovr\n",
		"d.sh": "if true; then\n  export X=ovr\nfi\n", "child1.sh": "#!/bin/bash\nexport X=other\nexec printenv\n",
		"child2.sh": "#!/bin/bash\nexec printenv\n", "lib.sh": "if true; then export X=other; fi\n", "sub/e.env": "X=sub\n"}
	if err := os.MkdirAll(filepath.Join(dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	for n, b := range files {
		if err := os.WriteFile(filepath.Join(dir, n), []byte(b), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	r := rand.New(rand.NewSource(7))
	n := 400
	if s := os.Getenv("ENVRES_DIFF_N"); s != "" {
		fmt.Sscan(s, &n)
	}
	if testing.Short() {
		n = 50
	}
	for i := 0; i < n; i++ {
		var b strings.Builder
		b.WriteString("#!/bin/bash\n" + diffPrelude)
		k := 1 + r.Intn(6)
		for j := 0; j < k; j++ {
			b.WriteString(diffStmts[r.Intn(len(diffStmts))] + "\n")
		}
		b.WriteString("exec printenv\n")
		script := b.String()
		if err := os.WriteFile(filepath.Join(dir, "run.sh"), []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(bash, "--noprofile", "--norc", "run.sh")
		cmd.Dir = dir
		cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "X=ovr"}
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("bash: %v\n%s", err, script)
		}
		got, gotY := "absent", false
		for _, l := range bytes.Split(out, []byte("\n")) {
			if v, ok := bytes.CutPrefix(l, []byte("X=")); ok {
				got = "X=" + string(v)
			}
			if bytes.HasPrefix(l, []byte("Y=")) {
				gotY = true
			}
		}
		res, err := Lint(context.Background(), Config{Dir: dir, Scripts: []string{"run.sh"},
			Overrides: []Override{{Name: "X", Value: "ovr", Known: true}}})
		if err != nil {
			t.Fatal(err)
		}
		var rules []string
		loadY := false
		for _, f := range res.Findings {
			if f.Rule == "env-file-load" {
				for _, v := range f.Variables {
					loadY = loadY || v == "Y"
				}
			}
			switch f.Rule {
			case "env-file-clobber", "assign-clobber", "unset-protected", "env-reset":
				rules = append(rules, fmt.Sprintf("%s@%d", f.Rule, f.Line))
			}
		}
		// A condition over a value the analysis does not know is walked
		// both ways: there, only a missed change is an error.
		conditional := strings.Contains(script, `[ -n "$X"`) || strings.Contains(script, `[ -z "$X"`) ||
			strings.Contains(script, `[ "$X"`) || strings.Contains(script, "test ")
		switch {
		case got != "X=ovr" && len(rules) == 0:
			t.Errorf("bash gives the worker %s, the lint says nothing:\n%s", got, script)
		case got == "X=ovr" && len(rules) > 0 && !conditional:
			t.Errorf("bash gives the worker X=ovr, the lint says %v:\n%s", rules, script)
		}
		// Y is only ever set by the env files: the worker has it exactly
		// when an env-file-load finding names it.
		// (export Y exports the loaded value on purpose: not a load finding.)
		// A fill-only loader sets Y without overriding anything: no finding.
		fillOnly := strings.Contains(script, "${!k") || strings.Contains(script, "eval echo")
		if gotY != loadY && !(conditional && loadY) && !strings.Contains(script, "export Y\n") && !(fillOnly && gotY) {
			t.Errorf("bash gives the worker Y: %v; the lint's env-file-load names Y: %v:\n%s", gotY, loadY, script)
		}
	}
}
