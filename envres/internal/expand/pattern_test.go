package expand

import (
	"bytes"
	"fmt"
	"os/exec"
	"strings"
	"testing"

	"mvdan.cc/sh/v3/syntax"
)

// TestTrimPatternBash is a differential test of the pattern operators
// against bash: each value, pattern and operator (${F%P}, ${F%%P}, ${F#P},
// ${F##P}) is expanded by bash and by trimPattern, and the results must be
// equal. Patterns are written unquoted, as they appear in scripts.
func TestTrimPatternBash(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("bash not installed")
	}
	values := []string{"conf.envX", "conf.env", "/opt/app/bin/run.sh", "a/b/c", "app-1.2.3.tar.gz",
		"", "x", "v", "--port=8080", "KEY=va=lue", "dir/.env.local", "ABCabc123", "a*b?c", "[x]", `back\slash`, "ÄÖü", "naïve.txt"}
	patterns := []string{"[!v]", "[^v]", "[!.]*", "*", "?", "*/", "/*", ".*", "*.", "[[:alpha:]]", "[[:digit:]]*",
		"[a-c]", "*[!a-z]", "\\*", "*\\?*", "*=", "=*", "--*", "[.]env*", "*.tar.gz", "*.*", "[]]", "[!]]",
		"a", "env", "*env", "?*/", "[[:upper:]]*", "\\\\*", "[x", "*[", "[*]", "[-a]", "[a-]", "**"}
	ops := []struct {
		text string
		op   syntax.ParExpOperator
	}{{"%", syntax.RemSmallSuffix}, {"%%", syntax.RemLargeSuffix}, {"#", syntax.RemSmallPrefix}, {"##", syntax.RemLargePrefix}}
	var script bytes.Buffer
	type tc struct {
		v, p string
		op   syntax.ParExpOperator
		text string
	}
	var cases []tc
	for _, v := range values {
		fmt.Fprintf(&script, "F=%s\n", shellQuote(v))
		for _, p := range patterns {
			for _, o := range ops {
				fmt.Fprintf(&script, "printf '%%s\\0' \"${F%s%s}\"\n", o.text, p)
				cases = append(cases, tc{v, p, o.op, o.text})
			}
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
		t.Fatalf("bash printed %d results for %d cases", len(got), len(cases))
	}
	bad := 0
	for i, c := range cases {
		lint, ok := trimPattern(c.v, c.p, c.op)
		if !ok {
			continue // a pattern lint does not read: unknown, never wrong
		}
		if lint != got[i] {
			bad++
			if bad <= 20 {
				t.Errorf("${F%s%s} with F=%q: bash %q, lint %q", c.text, c.p, c.v, got[i], lint)
			}
		}
	}
	if bad > 20 {
		t.Errorf("… %d differences in all", bad)
	}
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }
