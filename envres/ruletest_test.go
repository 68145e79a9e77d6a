package envres

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"
)

// The rule tests, as golang.org/x/tools/go/analysis/analysistest: each
// archive in testdata/rules is a set of scripts linted as the CLI lints
// them (positional parameters unknown, whole-repository mode), whose
// lines say which findings they expect. A line's trailing comment
//
//	# want RULE[:COL] ["MESSAGE REGEXP"] …
//
// expects a finding of RULE on that line (at byte column COL, when
// given, whose message matches the regexp, when given); every finding
// must be expected and every expectation met. The archive's comment holds
// the configuration, one directive a line:
//
//	require NAME…          Config.Require
//	override NAME[=VALUE]  Config.Overrides (no "=": the value is not known)
//	args WORD…             Config.Args (the CLI's "-- WORD…")
//	lint FILE…             the scripts linted (default: the first file)
//	want FILE:LINE RULE[:COL] ["REGEXP"]  an expectation on a line that
//	                       cannot carry a comment (a shebang)
//
// Lines starting with # are comments.
func TestRules(t *testing.T) {
	files, _ := filepath.Glob("testdata/rules/*.txtar")
	if len(files) == 0 {
		t.Fatal("no rule tests in testdata/rules")
	}
	for _, file := range files {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".txtar"), func(t *testing.T) {
			t.Parallel()
			runRuleTest(t, file)
		})
	}
}

// expectation is one `want` of a rule test.
type expectation struct {
	file string
	line int
	rule string
	col  int // 0: any
	msg  *regexp.Regexp
	met  bool
	at   string // where the want is written, for errors
}

func (e *expectation) String() string {
	s := fmt.Sprintf("%s:%d %s", e.file, e.line, e.rule)
	if e.col > 0 {
		s += ":" + strconv.Itoa(e.col)
	}
	if e.msg != nil {
		s += fmt.Sprintf(" %q", e.msg)
	}
	return s
}

// wantRE finds a want comment; wantArgRE its items.
var (
	wantRE    = regexp.MustCompile(`(?:^|\s)# want (.*)$`)
	wantArgRE = regexp.MustCompile(`([a-z-]+)(?::(\d+))?(?:\s+"((?:[^"\\]|\\.)*)")?`)
)

func runRuleTest(t *testing.T, file string) {
	ar, err := txtar.ParseFile(file)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	cfg := Config{Dir: dir, ArgsUnknown: true, KeepGoing: true}
	var wants []*expectation
	parseWants := func(where, f string, line int, text string) {
		for _, m := range wantArgRE.FindAllStringSubmatch(text, -1) {
			e := &expectation{file: f, line: line, rule: m[1], at: where}
			if RuleByName(e.rule) == nil {
				t.Fatalf("%s: want names no rule: %q", where, e.rule)
			}
			if m[2] != "" {
				e.col, _ = strconv.Atoi(m[2])
			}
			if m[3] != "" {
				re, err := regexp.Compile(strings.ReplaceAll(m[3], `\"`, `"`))
				if err != nil {
					t.Fatalf("%s: %v", where, err)
				}
				e.msg = re
			}
			wants = append(wants, e)
		}
	}
	for i, l := range strings.Split(string(ar.Comment), "\n") {
		where := fmt.Sprintf("%s:%d", file, i+1)
		fs := strings.Fields(l)
		if len(fs) == 0 || strings.HasPrefix(fs[0], "#") {
			continue
		}
		switch fs[0] {
		case "require":
			cfg.Require = append(cfg.Require, fs[1:]...)
		case "override":
			for _, o := range fs[1:] {
				name, value, known := strings.Cut(o, "=")
				cfg.Overrides = append(cfg.Overrides, Override{Name: name, Value: value, Known: known})
			}
		case "args":
			cfg.Args, cfg.ArgsUnknown = fs[1:], false
		case "lint":
			cfg.Scripts = append(cfg.Scripts, fs[1:]...)
		case "want":
			f, ln, ok := strings.Cut(fs[1], ":")
			n, err := strconv.Atoi(ln)
			if !ok || err != nil {
				t.Fatalf("%s: want FILE:LINE RULE…: %q", where, l)
			}
			parseWants(where, f, n, strings.Join(fs[2:], " "))
		default:
			t.Fatalf("%s: unknown directive %q", where, fs[0])
		}
	}
	for _, f := range ar.Files {
		path := filepath.Join(dir, f.Name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		mode := os.FileMode(0o644)
		if strings.HasSuffix(f.Name, ".sh") {
			mode = 0o755
		}
		if err := os.WriteFile(path, f.Data, mode); err != nil {
			t.Fatal(err)
		}
		for i, l := range strings.Split(string(f.Data), "\n") {
			if m := wantRE.FindStringSubmatch(l); m != nil {
				parseWants(fmt.Sprintf("%s: %s:%d", file, f.Name, i+1), f.Name, i+1, m[1])
			}
		}
	}
	if len(cfg.Scripts) == 0 {
		if len(ar.Files) == 0 {
			t.Fatal("no scripts")
		}
		cfg.Scripts = []string{ar.Files[0].Name}
	}
	res, err := Lint(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range res.Findings {
		found := false
		for _, e := range wants {
			if e.met || e.file != f.File || e.line != f.Line || e.rule != f.Rule ||
				(e.col > 0 && e.col != f.Column) || (e.msg != nil && !e.msg.MatchString(f.Message)) {
				continue
			}
			e.met, found = true, true
			break
		}
		if !found {
			t.Errorf("unexpected finding %s: %s: %s [%s]", f.Pos, f.Severity, f.Message, f.Rule)
		}
	}
	for _, e := range wants {
		if !e.met {
			t.Errorf("%s: no finding %s", e.at, e)
		}
	}
}
