package schema

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
)

// deepSpecs are inputs that overflowed (or nearly overflowed) the Go
// stack inside HCL's parser or evaluator before exprTooDeep refused them:
// the fuzz seeds of FuzzLoad too.
func deepSpecs() map[string]string {
	r := strings.Repeat
	wrap := func(expr string) string {
		return "launch \"a\" {\n  command = [\"/bin/true\"]\n  env = { X = " + expr + " }\n}\n"
	}
	return map[string]string{
		"unary minus 400k":   wrap(r("-", 400_000) + "1"),
		"unary minus 200k":   wrap(r("-", 200_000) + "1"),
		"plus 520k":          wrap("1" + r("+1", 520_000)),
		"bang":               wrap(r("!", 5000) + "true"),
		"ternary":            wrap("true" + r(" ? 1 : true", 2000) + " ? 1 : 2"),
		"and chain":          wrap("true" + r(" && true", 2000)),
		"multiline parens":   wrap("(1" + r("\n + 1", 2000) + ")"),
		"nested interp":      wrap(r("\"${", 600) + "1" + r("}\"", 600)),
		"template if":        wrap("\"" + r("%{ if true }", 1200) + "x" + r("%{ endif }", 1200) + "\""),
		"heredoc interp ops": "launch \"a\" {\n  command = [<<EOT\n${" + r("-", 2000) + "1}\nEOT\n  ]\n}\n",
	}
}

func TestExprTooDeep(t *testing.T) {
	r := strings.Repeat
	ok := map[string]string{
		"dashes in a string":      "launch \"a\" { command = [\"" + r("-", 5000) + "\"] }\n",
		"dashes in a comment":     "# " + r("-", 5000) + "\n// " + r("+", 5000) + "\n/* " + r("!", 5000) + " */\nlaunch \"a\" { command = [\"x\"] }\n",
		"dashes in a heredoc":     "launch \"a\" {\n  command = [<<-EOT\n    " + r("- ", 5000) + "\n    EOT\n  ]\n}\n",
		"many attributes":         "launch \"a\" {\n  command = [\"x\"]\n  env = {\n" + r("    A = -1 + 2\n", 3000) + "  }\n}\n",
		"object items by colon":   "variable \"v\" {\n  default = {\n" + r("    a: -1\n", 3000) + "  }\n}\n",
		"list items":              "launch \"a\" { command = [" + r("-1, ", 3000) + "\"x\"] }\n",
		"hyphenated identifiers":  "launch \"a\" { command = [\"x\"]\n  env = { X = " + r("a-b-c-d.", 100) + "e } }\n",
		"exponents":               "variable \"v\" { default = [" + r("1e-5, ", 3000) + "1] }\n",
		"escaped interpolations":  "launch \"a\" { command = [\"" + r("$${-", 3000) + "\"] }\n",
		"sequential template ifs": "launch \"a\" { command = [\"" + r("%{ if true }-%{ endif }", 3000) + "\"] }\n",
	}
	for name, src := range ok {
		if l, c, _, deep := exprTooDeep([]byte(src)); deep {
			t.Errorf("%s: refused at %d:%d", name, l, c)
		}
	}
	for name, src := range deepSpecs() {
		l, c, off, deep := exprTooDeep([]byte(src))
		if !deep {
			t.Errorf("%s: not refused", name)
			continue
		}
		if l < 1 || c < 1 || off < 0 || off >= len(src) {
			t.Errorf("%s: refused at %d:%d (byte %d of %d)", name, l, c, off, len(src))
		}
	}
	// The diagnostic Parse returns: exit 2's file:line:col.
	src := deepSpecs()["unary minus 400k"]
	path := filepath.Join(t.TempDir(), "deep.hcl")
	_, _, diags := Parse([]byte(src), path, LoadOptions{LookupEnv: lookupFrom(nil)})
	if !diags.HasErrors() || diags[0].Summary != "Expression too deep" || diags[0].Subject == nil {
		t.Fatalf("diagnostics %v", diags)
	}
	if s := diags[0].Subject.Start; s.Line != 3 || s.Column != 1013 {
		t.Errorf("at %d:%d, want 3:1013 (the 1000th minus sign)", s.Line, s.Column)
	}
}

// FuzzExprDepth: whatever exprTooDeep lets through parses into a syntax
// tree no deeper than a small multiple of the depth it counted (an
// under-count is how a stack overflow would slip past it).
func FuzzExprDepth(f *testing.F) {
	f.Add([]byte(contractSpec))
	for _, s := range deepSpecs() {
		if len(s) < 1<<14 {
			f.Add([]byte(s))
		}
	}
	f.Add([]byte("x = <<EOT\n${-1}\nEOT\ny = \"${\"%{ if a }${b}%{ endif }\"}\"\n"))
	f.Add([]byte("x = [for a in b: -a if !c]\ny = {a: -1, b: (1 + 2) * 3}\n"))
	f.Fuzz(func(t *testing.T, src []byte) {
		if len(src) > 1<<16 {
			return
		}
		s := newExprScan(src)
		if !s.run() {
			return
		}
		file, diags := hclsyntax.ParseConfig(src, "x.hcl", hcl.InitialPos)
		if diags.HasErrors() || file == nil {
			return
		}
		w := &depthWalker{}
		hclsyntax.Walk(file.Body.(*hclsyntax.Body), w)
		if bound := 16*(s.max+1) + 64; w.deepest > bound {
			t.Fatalf("the syntax tree is %d deep, exprTooDeep counted %d (bound %d)", w.deepest, s.max, bound)
		}
	})
}

type depthWalker struct{ depth, deepest int }

func (w *depthWalker) Enter(hclsyntax.Node) hcl.Diagnostics {
	w.depth++
	w.deepest = max(w.deepest, w.depth)
	return nil
}

func (w *depthWalker) Exit(hclsyntax.Node) hcl.Diagnostics {
	w.depth--
	return nil
}
