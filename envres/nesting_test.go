package envres

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"mvdan.cc/sh/v3/syntax"

	"github.com/childproof/childproof/envres/internal/nesting"
)

// deepScripts are scripts that overflowed the Go stack (or took most of
// a gigabyte) in mvdan.cc/sh's parser or in the analyzer before
// CheckNesting refused them, at n levels.
func deepScripts(n int) map[string]string {
	r := strings.Repeat
	return map[string]string{
		"arithmetic parens":  "echo $((" + r("(", n) + "1" + r(")", n) + "))\n",
		"subshells":          r("(", n) + "true" + r(")", n) + "\n",
		"groups":             r("{ ", n) + "true;" + r(" }", n) + "\n",
		"command subst":      "echo " + r("$(", n) + "true" + r(")", n) + "\n",
		"if":                 r("if true; then ", n) + "true;" + r(" fi;", n) + "\n",
		"while":              r("while true; do ", n) + "true;" + r(" done;", n) + "\n",
		"param default":      "echo " + r("${X:-", n) + "x" + r("}", n) + "\n",
		"test bang":          "[[ " + r("! ", n) + "a ]]\n",
		"test and":           "[[ a" + r(" && a", n) + " ]]\n",
		"case":               r("case a in a) ", n) + "true" + r(";; esac", n) + "\n",
		"quoted subst":       "echo " + r("\"$(echo ", n) + "x" + r(")\"", n) + "\n",
		"process subst":      "cat " + r("<(cat ", n) + "x" + r(")", n) + "\n",
		"ternary":            "echo $((1" + r("?1:1", n) + "))\n",
		"param subst":        "echo " + r("${X:+$(", n) + "x" + r(")}", n) + "\n",
		"after a heredoc":    "cat <<EOF\n'\nEOF\n" + r("(", n) + "true" + r(")", n) + "\n",
		"in a heredoc":       "cat <<EOF\n" + r("$(", n) + "true" + r(")", n) + "\nEOF\n",
		"and chain":          "true" + r(" && true", n) + "\n",
		"and chain on lines": "true" + r(" &&\n true", n) + "\n",
		"time":               r("time ", n) + "true\n",
		"definitions":        r("f() ", n) + "{ true; }\n",
	}
}

func TestCheckNesting(t *testing.T) {
	for name, src := range deepScripts(MaxNesting + 1) {
		err := CheckNesting("x.sh", []byte(src))
		var pe *ParseError
		if !errors.As(err, &pe) {
			t.Errorf("%s: not refused (%v)", name, err)
			continue
		}
		if pe.File != "x.sh" || pe.Line < 1 || pe.Column < 1 || !strings.Contains(pe.Msg, "nesting too deep") {
			t.Errorf("%s: %v", name, err)
		}
	}
	for name, src := range deepScripts(MaxNesting / 4) {
		if err := CheckNesting("x.sh", []byte(src)); err != nil && !strings.Contains(name, "heredoc") {
			t.Errorf("%s at %d levels: %v", name, MaxNesting/4, err)
		}
	}
	// Real scripts' shapes: each passes however often it repeats, and
	// the scan ends where it started (nothing left open).
	flat := map[string]string{
		"case arms":          "case \"$1\" in\n  fi) x=1;;\n  (a|b) y=2;;\n  *) z=3;;\nesac\n",
		"keyword in a word":  "echo if for while case { done fi esac\n",
		"backtick fi":        "x=`if a; then echo b; fi`\n",
		"line continuation":  "f $(if a; then \\\n  echo b; \\\nfi; \\\nif c; then echo d; fi)\n",
		"heredoc quotes":     "cat <<EOF\ndon't ( {\nEOF\ncat <<-'E'\n\t$( ( (\n\tE\necho ok\n",
		"heredoc then brace": "f() {\n\tcat <<__EOF__\nUsage: ${0##*/} X\n__EOF__\n}\n",
		"two heredocs":       "cat <<'A' <<B\na $( (\nA\nb $x (\nB\n",
		"continued dq":       "eval \\\n\"f() {\n  case \\\"\\${1##*/}\\\" in\n  esac\n}\"\n",
		"arith for":          "for ((i=0; i<3; i++)); do echo $((i*(2+1))); done\n",
		"comments":           "# ( { $( if\necho a # ( {\necho a#b $#\n",
		"single quotes":      "sed 's/(/[/g; s/{/x/' f\necho $'a\\'(b'\n",
		"parameter forms":    "echo ${#x} ${x##*/} ${!x} \"${x:-\"(\"}\" ${a[${#a[*]}]}\n",
		"pipes and lists":    "a | b |& c && d || e & f; g\n",
		"functions":          "f() { g; }\nfunction h { i; }\nk () ( l )\n",
		"extglob":            "shopt -s extglob\nls @(a|b) !(c)\n",
	}
	for name, src := range flat {
		s := nesting.Scan([]byte(strings.Repeat(src, 3000)))
		if s.Refused {
			t.Errorf("%s: refused at %d:%d", name, s.Line, s.Column)
		}
		if s.Open != 0 {
			t.Errorf("%s: %d levels left open at the end", name, s.Open)
		}
	}
}

// TestLintNestingIsParseError: a script nested too deep is a parse error
// of that file (exit 2 in lint), not a crash.
func TestLintNestingIsParseError(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "run.sh"), []byte("#!/bin/bash\n"+deepScripts(300_000)["subshells"]), 0o755); err != nil {
		t.Fatal(err)
	}
	_, err := Lint(t.Context(), Config{Dir: dir, Scripts: []string{"run.sh"}})
	var pe *ParseError
	if !errors.As(err, &pe) || pe.File != "run.sh" || pe.Line != 2 || pe.Column != MaxNesting+1 {
		t.Fatalf("Lint: %v", err)
	}
}

// FuzzCheckNesting: whatever CheckNesting lets through parses into a tree
// no deeper than a small multiple of the depth it counted. An input it
// under-counts (a construct it takes for quoted text, or a closer it takes
// for a real one) would parse much deeper than it says, which is how a
// crash would slip past it.
func FuzzCheckNesting(f *testing.F) {
	for _, s := range inlineSeeds {
		f.Add(s)
	}
	for _, s := range deepScripts(40) {
		f.Add(s)
	}
	f.Add("cat <<EOF\n'\nEOF\n( ( ( true ) ) )\n")
	f.Add("case x in a) ( ( true ) );; esac\n")
	f.Add("echo \"$(echo \"$(echo `echo ${X:-$(( (1) ))}`)\")\"\n")
	f.Fuzz(func(t *testing.T, src string) {
		if len(src) > 1<<16 {
			return
		}
		s := nesting.Scan([]byte(src))
		if s.Refused {
			return
		}
		file, err := syntax.NewParser().Parse(strings.NewReader(src), "x.sh")
		if err != nil {
			return
		}
		depth, deepest := 0, 0
		syntax.Walk(file, func(n syntax.Node) bool {
			if n == nil {
				depth--
				return true
			}
			depth++
			deepest = max(deepest, depth)
			return true
		})
		if bound := 16*(s.Deepest+1) + 64; deepest > bound {
			t.Fatalf("the syntax tree is %d deep, CheckNesting counted %d (bound %d)", deepest, s.Deepest, bound)
		}
	})
}

// TestNestingOnPrecisionCorpus: on the 663 public scripts of the lint's
// precision corpus (internal/testsupport/testdata/precision, when fetched into the cache), the
// pre-scan refuses none and ends every one with nothing left open — it
// reads real scripts' quotes, heredocs, case arms and continuations as
// bash does. (Measured: the deepest is 13.)
func TestNestingOnPrecisionCorpus(t *testing.T) {
	dir := os.Getenv("CHILDPROOF_PRECISION_CORPUS")
	if dir == "" {
		c, err := os.UserCacheDir()
		if err != nil {
			t.Skip("no cache directory")
		}
		dir = filepath.Join(c, "childproof", "precision-corpus")
	}
	if _, err := os.Stat(dir); err != nil {
		t.Skipf("the precision corpus is not fetched (%s): go test -run TestPrecision ./internal/testsupport fetches it", dir)
	}
	n, deepest := 0, 0
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return nil
		}
		n++
		s := nesting.Scan(b)
		if s.Refused {
			t.Errorf("%s: refused at %d:%d", p, s.Line, s.Column)
		} else if s.Open != 0 {
			t.Errorf("%s: %d levels left open at the end (the scan lost its place)", p, s.Open)
		}
		deepest = max(deepest, s.Deepest)
		return nil
	})
	t.Logf("%d scripts, the deepest %d levels", n, deepest)
}
