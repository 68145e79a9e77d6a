package schema

import (
	"bytes"
	"math/rand/v2"
	"os"
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
		if d := tokenDepth(src); d > s.max {
			t.Fatalf("over hclsyntax's tokens the depth is %d, exprTooDeep counted %d", d, s.max)
		}
	})
}

// tokenDepth is exprTooDeep's count over hclsyntax's own tokens
// (hclsyntax.LexConfig), the oracle of its byte scanner: the scanner
// stays because the lexer costs too much before the parser runs (5.6 s
// and 600 MB for the 1 MiB line of minus signs the scanner refuses in
// 0.4 ms; 4 s for an 850 KB one-line list), so the fuzz target holds it
// to the lexer's tokens instead.
func tokenDepth(src []byte) int {
	toks, _ := hclsyntax.LexConfig(src, "x.hcl", hcl.InitialPos)
	type level struct {
		kind exprKind
		ops  int
	}
	levels := []level{{kind: kBody}}
	depth, deepest := 0, 0
	top := func() *level { return &levels[len(levels)-1] }
	open := func(k exprKind) {
		levels = append(levels, level{kind: k})
		depth++
		deepest = max(deepest, depth)
	}
	endItem := func() {
		depth -= top().ops
		top().ops = 0
	}
	for i, tok := range toks {
		switch tok.Type {
		case hclsyntax.TokenOBrace:
			open(kBody)
		case hclsyntax.TokenOParen, hclsyntax.TokenOBrack:
			open(kGroup)
		case hclsyntax.TokenOQuote:
			open(kQuote)
		case hclsyntax.TokenOHeredoc:
			open(kHeredoc)
		case hclsyntax.TokenTemplateInterp:
			open(kInterp)
		case hclsyntax.TokenTemplateControl:
			word := ""
			if i+1 < len(toks) && toks[i+1].Type == hclsyntax.TokenIdent {
				word = string(toks[i+1].Bytes)
			}
			switch {
			case word == "if" || word == "for":
				open(kDirective)
			case (word == "endif" || word == "endfor") && top().kind == kDirective && len(levels) > 1:
				depth -= top().ops + 1
				levels = levels[:len(levels)-1]
			}
			open(kInterp)
		case hclsyntax.TokenCBrace, hclsyntax.TokenCParen, hclsyntax.TokenCBrack, hclsyntax.TokenCQuote,
			hclsyntax.TokenCHeredoc, hclsyntax.TokenTemplateSeqEnd:
			if len(levels) > 1 {
				depth -= top().ops + 1
				levels = levels[:len(levels)-1]
			}
		case hclsyntax.TokenNewline:
			if top().kind == kBody {
				endItem()
			}
		case hclsyntax.TokenComment:
			if bytes.HasSuffix(tok.Bytes, []byte("\n")) && top().kind == kBody {
				endItem()
			}
		case hclsyntax.TokenComma, hclsyntax.TokenEqual:
			endItem()
		case hclsyntax.TokenPlus, hclsyntax.TokenMinus, hclsyntax.TokenStar, hclsyntax.TokenSlash, hclsyntax.TokenPercent,
			hclsyntax.TokenEqualOp, hclsyntax.TokenNotEqual, hclsyntax.TokenLessThan, hclsyntax.TokenLessThanEq,
			hclsyntax.TokenGreaterThan, hclsyntax.TokenGreaterThanEq, hclsyntax.TokenAnd, hclsyntax.TokenOr,
			hclsyntax.TokenBang, hclsyntax.TokenDot, hclsyntax.TokenEllipsis, hclsyntax.TokenFatArrow,
			hclsyntax.TokenQuestion, hclsyntax.TokenColon:
			top().ops++
			depth++
			deepest = max(deepest, depth)
		}
	}
	return deepest
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

// TestExprDepthTokens: exprTooDeep's byte scanner and tokenDepth (the same
// count over hclsyntax's tokens) agree on the spec examples, the inputs
// it lets through and the small inputs it refuses.
func TestExprDepthTokens(t *testing.T) {
	r := strings.Repeat
	srcs := map[string]string{
		"contract":      contractSpec,
		"object colon":  "variable \"v\" {\n  default = {\n" + r("    a: -1\n", 30) + "  }\n}\n",
		"for and splat": "x = [for a in b: -a if !c]\ny = {a: -1, b: (1 + 2) * 3}\nz = a[*].b\n",
		"comments":      "# a - b\nx = 1 + # c\n 2\n// d\ny = /* - */ 1\n",
		"heredoc":       "x = <<-EOT\n  ${a + b} - c\n  %{ if d }${-e}%{ endif }\n  EOT\ny = 1\n",
		"strip markers": "x = \"%{~ for a in b ~}${a}%{~ endfor ~}\"\n",
		"numbers":       "x = 1.a + 1.5e-3 - 2E+1.b * 1..5 + 1e-c\n", // 1.a: the '.' is an operator
	}
	examples, _ := filepath.Glob("../examples/*/*.hcl")
	for _, p := range examples {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		srcs[p] = string(b)
	}
	for name, src := range srcs {
		s := newExprScan([]byte(src))
		if !s.run() {
			t.Errorf("%s: refused", name)
			continue
		}
		if d := tokenDepth([]byte(src)); d != s.max {
			t.Errorf("%s: exprTooDeep counted %d, over hclsyntax's tokens %d", name, s.max, d)
		}
	}
	for name, src := range deepSpecs() {
		if len(src) >= 1<<14 {
			continue
		}
		if d := tokenDepth([]byte(src)); d <= MaxExprDepth {
			t.Errorf("%s: refused by exprTooDeep, but over hclsyntax's tokens %d deep", name, d)
		}
	}
}

// TestExprDepthGenerated: on generated specs that parse, exprTooDeep's
// count is never below tokenDepth's (an under-count is how a stack
// overflow would slip past it); almost always they are equal.
func TestExprDepthGenerated(t *testing.T) {
	g := exprGen{rand.New(rand.NewPCG(39, 3))}
	parsed, equal := 0, 0
	for range 3000 {
		var b strings.Builder
		for k := g.r.IntN(3); k >= 0; k-- {
			b.WriteString(g.pick("x", "y", "z") + " = " + g.expr(1+g.r.IntN(5)) + "\n")
		}
		if g.r.IntN(3) == 0 {
			b.WriteString("b \"l\" {\n  w = " + g.expr(3) + "\n}\n")
		}
		src := []byte(b.String())
		s := newExprScan(src)
		if !s.run() {
			continue
		}
		if f, d := hclsyntax.ParseConfig(src, "x.hcl", hcl.InitialPos); d.HasErrors() || f == nil {
			continue
		}
		parsed++
		switch d := tokenDepth(src); {
		case d > s.max:
			t.Errorf("exprTooDeep counted %d, over hclsyntax's tokens %d:\n%s", s.max, d, src)
		case d == s.max:
			equal++
		}
	}
	if parsed < 500 || equal < parsed*9/10 {
		t.Errorf("%d generated specs parsed, %d counted alike", parsed, equal)
	}
	t.Logf("%d generated specs parsed, %d counted alike", parsed, equal)
}

// exprGen writes random HCL expressions of every kind the scanner counts:
// operators, brackets, objects, conditionals, templates with interpolations
// and directives, heredocs, for expressions, splats and comments.
type exprGen struct{ r *rand.Rand }

func (g exprGen) pick(xs ...string) string { return xs[g.r.IntN(len(xs))] }

func (g exprGen) ws() string { return g.pick("", " ", "  ", "\n", " /* c */ ", " # c\n", " // c\n") }

func (g exprGen) expr(d int) string {
	if d <= 0 {
		return g.pick("a", "1", "1.5", "1e-5", "2E+3", "true", "null", "a.b", "a[0]", "a.0", "1.0", "x-y")
	}
	switch g.r.IntN(14) {
	case 0:
		return g.pick("-", "!") + g.expr(d-1)
	case 1, 2:
		return g.expr(d-1) + g.ws() + g.pick("+", "-", "*", "/", "%", "&&", "||", "==", "!=", "<", "<=", ">", ">=") + g.ws() + g.expr(d-1)
	case 3:
		return "(" + g.ws() + g.expr(d-1) + g.ws() + ")"
	case 4:
		var b []string
		for k := g.r.IntN(3); k >= 0; k-- {
			b = append(b, g.expr(d-1))
		}
		return "[" + strings.Join(b, ","+g.ws()) + g.pick("", ",") + "]"
	case 5:
		var b []string
		for k := g.r.IntN(3); k >= 0; k-- {
			b = append(b, g.pick("k", "\"k\"", "(k)")+g.pick(" = ", ": ")+g.expr(d-1))
		}
		return "{" + g.pick("\n", " ") + strings.Join(b, g.pick(",", "\n", ",\n")) + g.pick("\n", " ", ",") + "}"
	case 6:
		return g.expr(d-1) + " ? " + g.expr(d-1) + " : " + g.expr(d-1)
	case 7:
		return "\"" + g.tmpl(d-1) + "\""
	case 8:
		return "<<" + g.pick("", "-") + "EOT\n" + strings.ReplaceAll(g.tmpl(d-1), "\n", "") + "\nEOT\n"
	case 9:
		return "f(" + g.expr(d-1) + g.pick("", ", "+g.expr(d-1), "...") + ")"
	case 10:
		return "[for " + g.pick("v", "k, v") + " in " + g.expr(d-1) + ": " + g.expr(d-1) + g.pick("", " if "+g.expr(d-1)) + "]"
	case 11:
		return "{for k, v in " + g.expr(d-1) + ": k => " + g.expr(d-1) + g.pick("", "...") + "}"
	case 12:
		return g.expr(d-1) + g.pick("[*].a", ".*.a", "[0]", ".b", ".0")
	}
	return g.expr(d - 1)
}

func (g exprGen) tmpl(d int) string {
	var b strings.Builder
	for k := g.r.IntN(4); k >= 0; k-- {
		switch g.r.IntN(6) {
		case 0:
			b.WriteString(g.pick("text", " - ", "+", "$${x}", "%%{y}", "\\\"", "1.a", "{", "}"))
		case 1, 2:
			b.WriteString("${" + g.pick("", "~") + g.expr(d) + g.pick("", "~") + "}")
		case 3:
			b.WriteString("%{ if " + g.expr(d) + " }" + g.tmpl(d-1) + g.pick("", "%{ else }"+g.tmpl(d-1)) + "%{ endif }")
		case 4:
			b.WriteString("%{~ for v in " + g.expr(d) + " ~}" + g.tmpl(d-1) + "%{~ endfor ~}")
		}
		if d < 0 {
			break
		}
	}
	return b.String()
}
