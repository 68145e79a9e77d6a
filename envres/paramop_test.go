package envres

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestParamOperatorsBash is a differential test of the parameter operators
// against bash. For each state of a variable T and each expansion, bash
// prints the value; then the same expansion is exported as the protected
// X with that very value as the launcher's override: the lint must say
// nothing, so the analysis computed bash's value exactly (an unknown
// value or another one is an assign-clobber). A "v:" prefix keeps every
// value non-empty.
func TestParamOperatorsBash(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("bash not installed")
	}
	states := []string{"unset T", "T=", "T=ovr", "T=abcabc", "T='a b/c.d'", "T=ÄÖü", "T=x-y_z.tar.gz"}
	exps := []string{
		"${T}", "${T-d}", "${T:-d}", "${T+a}", "${T:+a}", "${T=d}", "${T:=d}",
		"${T#a}", "${T##*b}", "${T%c}", "${T%%.*}", "${T#[!x]}",
		"${#T}", "${T:1}", "${T:0:2}", "${T: -2}", "${T:1:1}", "${T:9}",
		"${T/b/B}", "${T//b/B}", "${T/#a/A}", "${T/%c/C}", "${T//[a-c]/_}", "${T/b}", "${T// /}", "${T//\\//-}",
		"${T^}", "${T^^}", "${T,}", "${T,,}", "${T^^[ab]}",
	}
	var script bytes.Buffer
	type tc struct{ state, exp string }
	var cases []tc
	for _, st := range states {
		for _, x := range exps {
			fmt.Fprintf(&script, "%s; printf '%%s\\0' \"v:%s\"\n", st, x)
			cases = append(cases, tc{st, x})
		}
	}
	cmd := exec.Command(bash, "--noprofile", "--norc", "-c", script.String())
	cmd.Env = []string{"LC_ALL=C.UTF-8"} // scripts run in a UTF-8 locale: the shell cuts between characters
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("bash: %v", err)
	}
	got := strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00")
	if len(got) != len(cases) {
		t.Fatalf("bash printed %d values for %d cases", len(got), len(cases))
	}
	dir := t.TempDir()
	bad := 0
	for i, c := range cases {
		src := fmt.Sprintf("#!/bin/bash\n%s\nexport X=\"v:%s\"\nexec printenv\n", c.state, c.exp)
		if err := os.WriteFile(filepath.Join(dir, "run.sh"), []byte(src), 0o755); err != nil {
			t.Fatal(err)
		}
		res, err := Lint(context.Background(), Config{Dir: dir, Scripts: []string{"run.sh"},
			Overrides: []Override{{Name: "X", Value: got[i], Known: true}}})
		if err != nil {
			t.Fatal(err)
		}
		var rules []string
		for _, f := range res.Findings {
			rules = append(rules, f.Rule)
		}
		if len(rules) > 0 && !anchoredRepl(c.exp) {
			bad++
			t.Errorf("%s; X=\"v:%s\": bash gives %q, the lint says %v", c.state, c.exp, got[i], rules)
		}
	}
	t.Logf("%d cases, %d differ", len(cases), bad)
}

// anchoredRepl reports whether x is ${T/#p/r} or ${T/%p/r}, which the
// analysis leaves unknown (shellParam says why): a finding there is no
// wrong value.
func anchoredRepl(x string) bool { return strings.Contains(x, "/#") || strings.Contains(x, "/%") }
