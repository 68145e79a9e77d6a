package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// The libraries speak Go, the command speaks CLI (issue 39): a library
// package's error messages and hints never name one of this command's
// flags, and those of packages that take a Go-built launch never name
// the spec language's attributes in its syntax (ready.timeout,
// on_stale = "replace", worker { comm }) — the Go caller wrote none.
//
// The rule, decided for this test:
//   - What counts is a string literal in a message position: the value of
//     a field named Hint, Msg, Message, Summary or Detail (in a composite
//     literal or an assignment), an argument of errors.New, fmt.Errorf,
//     errorf or withHint, the format of a report's Add, and a string a
//     function whose name ends in "Hint" returns. A literal anywhere else
//     is data: a wrapper's flags that lint reads (sudo --preserve-env),
//     the command lines export writes (srun --export=ALL), a rule's
//     documentation.
//   - A flag is one of this command's own long flags (--set, --state-dir,
//     …), read from its command tree; another program's flag that a
//     message names (a script's sudo -E) is not one.
//   - The HCL check applies to the packages a Go caller hands values to
//     (launcher and below it, verify, proc, outcome, redact, the internal
//     mechanisms); specWords speak about the spec file their caller
//     wrote, so its attributes are their words.
//   - cmd/ (and internal/console, internal/gitdiff, its helpers) is the
//     command; examples/ and bench/ are programs of their own; test files
//     are tests.
//
// specWords are the packages that speak about the spec file their caller
// wrote (the spec language, its rules, lint, export, import), whose words
// are the spec's attributes.
var specWords = []string{"schema", "spec", "internal/specrule", "envres", "envres/internal/nesting", "export", "importspec", "lintreport", "internal/hcltext"}

// libWordsAllowed lists the message literals that break the rule on
// purpose, each with its reason, as "path: literal substring".
var libWordsAllowed = map[string]string{}

// libWordsDebt lists the message literals that still break the rule (the
// flag named by a library message, left for the next step of issue 39):
// the test fails on any other, and on one of these that is gone (so that
// the list only shrinks).
var libWordsDebt = map[string]bool{}

func TestLibrariesSpeakGo(t *testing.T) {
	flags := commandFlags(t)
	attrs := hclAttributes(t)
	flagRe := regexp.MustCompile(`(^|[^A-Za-z0-9_-])--([a-z][a-z0-9-]*)`)
	var attrAlt []string
	for _, a := range attrs {
		attrAlt = append(attrAlt, regexp.QuoteMeta(a))
	}
	alt := strings.Join(attrAlt, "|")
	// HCL syntax: an attribute set (NAME = ), a block (NAME { ), a dotted
	// path (ready.timeout), or a snake_case attribute (on_stale).
	hclRe := regexp.MustCompile(`(^|[^A-Za-z0-9_.])((` + alt + `) = |(` + alt + `) \{|(` + alt + `)\.(` + alt + `)\b|\b(` + snakeOnly(attrs) + `)\b)`)

	root := filepath.Join("..", "..")
	var found []string
	seenDebt := map[string]bool{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			switch {
			case rel == ".":
				return nil
			case strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" || rel == "cmd" || rel == "examples" || rel == "bench" ||
				rel == "internal/console" || rel == "internal/gitdiff" || rel == "internal/testsupport" || rel == "internal/design":
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		pkg := filepath.ToSlash(filepath.Dir(rel))
		checkHCL := !slices.Contains(specWords, pkg) && !strings.HasPrefix(pkg, "export/")
		for _, lit := range messageLiterals(t, path) {
			var why []string
			for _, m := range flagRe.FindAllStringSubmatch(lit.text, -1) {
				if flags[m[2]] {
					why = append(why, "--"+m[2])
				}
			}
			if checkHCL {
				for _, m := range hclRe.FindAllStringSubmatch(lit.text, -1) {
					why = append(why, strings.TrimSpace(m[2]))
				}
			}
			if len(why) == 0 {
				continue
			}
			key := rel + ": " + lit.text
			if allowedLit(rel, lit.text) {
				continue
			}
			if libWordsDebt[key] {
				seenDebt[key] = true
				continue
			}
			found = append(found, rel+":"+strconv.Itoa(lit.line)+": "+strings.Join(why, ", ")+" in "+strconv.Quote(lit.text))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(found)
	for _, f := range found {
		t.Errorf("a library message speaks CLI or HCL: %s", f)
	}
	for k := range libWordsDebt {
		if !seenDebt[k] {
			t.Errorf("libWordsDebt lists %q, which no longer breaks the rule: drop it", k)
		}
	}
}

// allowedLit says whether libWordsAllowed lets lit of file rel be.
func allowedLit(rel, lit string) bool {
	for k := range libWordsAllowed {
		p, sub, _ := strings.Cut(k, ": ")
		if p == rel && strings.Contains(lit, sub) {
			return true
		}
	}
	return false
}

// commandFlags are the long flags of every command of the command tree.
func commandFlags(t *testing.T) map[string]bool {
	a := &app{stdin: strings.NewReader(""), stdout: io.Discard, stderr: io.Discard}
	root := newRootCmd(a, "linux", nil)
	flags := map[string]bool{}
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		for _, fs := range []*pflag.FlagSet{c.Flags(), c.PersistentFlags()} {
			fs.VisitAll(func(f *pflag.Flag) { flags[f.Name] = true })
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
	delete(flags, "help") // every program's
	if !flags["state-dir"] || !flags["set"] || !flags["in-env-file"] {
		t.Fatalf("the command tree's flags lack state-dir, set or in-env-file: %v", flags)
	}
	return flags
}

// hclAttributes are the spec language's attribute and block names, read
// from the hcl:"…" tags of the module's structs.
func hclAttributes(t *testing.T) []string {
	tag := regexp.MustCompile(`hcl:"([a-z_]+)`)
	set := map[string]bool{}
	root := filepath.Join("..", "..")
	filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata") && path != root {
			if d != nil && d.IsDir() {
				return filepath.SkipDir
			}
			return err
		}
		if !strings.HasSuffix(path, ".go") {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, m := range tag.FindAllSubmatch(b, -1) {
			set[string(m[1])] = true
		}
		return nil
	})
	if !set["on_stale"] || !set["ready"] || !set["timeout"] {
		t.Fatalf("no spec attributes found in hcl tags: %v", set)
	}
	out := make([]string, 0, len(set))
	for a := range set {
		out = append(out, a)
	}
	sort.Strings(out)
	return out
}

// snakeOnly is the alternation of the attributes with an underscore (no
// English word): on_stale, env_file, allow_all_interfaces, ….
func snakeOnly(attrs []string) string {
	var out []string
	for _, a := range attrs {
		if strings.Contains(a, "_") {
			out = append(out, regexp.QuoteMeta(a))
		}
	}
	return strings.Join(out, "|")
}

type literal struct {
	text string
	line int
}

// messageFields are the fields whose values are messages or hints.
var messageFields = map[string]bool{"Hint": true, "Msg": true, "Message": true, "Summary": true, "Detail": true}

// messageLiterals are the string literals of file path in message
// positions (see TestLibrariesSpeakGo).
func messageLiterals(t *testing.T, path string) []literal {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	var out []literal
	collect := func(e ast.Expr) {
		ast.Inspect(e, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.FuncLit:
				return false
			case *ast.BasicLit:
				if n.Kind == token.STRING {
					if s, err := strconv.Unquote(n.Value); err == nil {
						out = append(out, literal{s, fset.Position(n.Pos()).Line})
					}
				}
			}
			return true
		})
	}
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.KeyValueExpr:
			if id, ok := n.Key.(*ast.Ident); ok && messageFields[id.Name] {
				collect(n.Value)
			}
		case *ast.AssignStmt:
			for i, lhs := range n.Lhs {
				if sel, ok := lhs.(*ast.SelectorExpr); ok && messageFields[sel.Sel.Name] && i < len(n.Rhs) {
					collect(n.Rhs[i])
				}
			}
		case *ast.CallExpr:
			switch callName(n.Fun) {
			case "errors.New", "fmt.Errorf", "errorf", "withHint":
				for _, a := range n.Args {
					collect(a)
				}
			case "Add":
				if len(n.Args) >= 2 {
					collect(n.Args[1])
				}
			}
		case *ast.FuncDecl:
			if strings.HasSuffix(n.Name.Name, "Hint") && n.Body != nil {
				ast.Inspect(n.Body, func(m ast.Node) bool {
					if r, ok := m.(*ast.ReturnStmt); ok {
						for _, e := range r.Results {
							collect(e)
						}
					}
					return true
				})
			}
		}
		return true
	})
	return out
}

// callName is "pkg.Func", "Method" or "func" for a call's function.
func callName(fun ast.Expr) string {
	switch f := fun.(type) {
	case *ast.Ident:
		return f.Name
	case *ast.SelectorExpr:
		if x, ok := f.X.(*ast.Ident); ok && (x.Name == "errors" || x.Name == "fmt") {
			return x.Name + "." + f.Sel.Name
		}
		return f.Sel.Name
	}
	return ""
}
