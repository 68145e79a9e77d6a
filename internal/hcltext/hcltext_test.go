package hcltext

import (
	"bytes"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/hashicorp/hcl/v2/hclwrite"
	"github.com/zclconf/go-cty/cty"
)

func TestFormat(t *testing.T) {
	tests := []struct{ in, want string }{
		{"a = 1\nlong_name = 2\n", "a         = 1\nlong_name = 2\n"},
		{"b {\nx = 1\n\nyy = [\"a\", \"b\"]\n}\n", "b {\n  x = 1\n\n  yy = [\"a\", \"b\"]\n}\n"},
		{"job \"j\" {\ntype = \"batch\"\ngroup \"g\" {\ncount = 1\n}\n}\n", "job \"j\" {\n  type = \"batch\"\n  group \"g\" {\n    count = 1\n  }\n}\n"},
		{"env = {\nA = \"1\"\nLONGER = env(\"X\")\n}\n", "env = {\n  A      = \"1\"\n  LONGER = env(\"X\")\n}\n"},
		{"# a comment\na = 1\n# another\nbb = 2\n", "# a comment\na = 1\n# another\nbb = 2\n"},
		{"a = 1 # one\nbbb = 2 # two\n", "a   = 1 # one\nbbb = 2 # two\n"},
		{"x {   \n  a = 1   \n}\n", "x {\n  a = 1\n}\n"},
		{"é = 1\nab = \"${var.x}-y\"\n", "é  = 1\nab = \"${var.x}-y\"\n"},
	}
	for _, tt := range tests {
		got := string(Format([]byte(tt.in)))
		if got != tt.want {
			t.Errorf("Format(%q) = %q, want %q", tt.in, got, tt.want)
		}
		if w := string(hclwrite.Format([]byte(tt.in))); w != tt.want {
			t.Errorf("the test is wrong: hclwrite.Format(%q) = %q", tt.in, w)
		}
	}
}

// FuzzFormat: on text whose spaces between tokens are canonical, Format
// gives what hclwrite.Format gives, whatever the indentation and the
// alignment were.
func FuzzFormat(f *testing.F) {
	f.Add("job \"a\" {\n  type = \"batch\"\n\n  group \"g\" {\n    count = 1\n    restart {\n      attempts = 0\n      delay    = \"1s\"\n    }\n  }\n}\n")
	f.Add("launch \"x\" {\n  command = [\"a\", \"${env(\"B\")}\"]\n  env = {\n    A = \"1\" # c\n    BB = var.p\n  }\n}\n")
	f.Fuzz(func(t *testing.T, src string) {
		if strings.Contains(src, "<<") || strings.Contains(src, "/*") || !utf8.ValidString(src) {
			return // a heredoc's or a block comment's lines are content
		}
		if _, diags := hclsyntax.ParseConfig([]byte(src), "f.hcl", hcl.InitialPos); diags.HasErrors() {
			return
		}
		canon := hclwrite.Format([]byte(src))
		if !bytes.Equal(hclwrite.Format(canon), canon) {
			return
		}
		lines := strings.Split(string(canon), "\n")
		var flat []string
		for i, l := range lines {
			if i < len(lines)-1 || strings.TrimSpace(l) != "" { // blanks at the very end stay
				l = strings.TrimLeft(l, " ")
			}
			flat = append(flat, l)
		}
		if got := Format([]byte(strings.Join(flat, "\n"))); !bytes.Equal(got, canon) {
			t.Errorf("Format gives\n%s\nhclwrite.Format gives\n%s", got, canon)
		}
	})
}

// FuzzQuote: Quote(s) reads back as s (as U+FFFD where s is not UTF-8),
// as a literal: nothing in it is a template.
func FuzzQuote(f *testing.F) {
	for _, s := range []string{"", "plain", "${x} %{if} $${y}", "a\"b\\c\nd\te\rf", "\x00\x1b\u00a0\u200b\U0001F600", "\xff\xfe"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		q := Quote(s)
		expr, diags := hclsyntax.ParseExpression([]byte(q), "q.hcl", hcl.InitialPos)
		if diags.HasErrors() {
			t.Fatalf("Quote(%q) = %s does not parse: %v", s, q, diags)
		}
		v, diags := expr.Value(nil)
		if diags.HasErrors() {
			t.Fatalf("Quote(%q) = %s does not evaluate: %v", s, q, diags)
		}
		if want := cty.StringVal(strings.ToValidUTF8(s, "\uFFFD")); !v.RawEquals(want) {
			t.Errorf("Quote(%q) = %s reads back as %#v, want %#v", s, q, v, want)
		}
		if strings.ContainsAny(q[1:len(q)-1], "\n\r") {
			t.Errorf("Quote(%q) = %q spans lines", s, q)
		}
	})
}

func TestList(t *testing.T) {
	if got, want := List([]string{"a", "${b}"}), `["a", "$${b}"]`; got != want {
		t.Errorf("List = %s, want %s", got, want)
	}
	if got := List(nil); got != "[]" {
		t.Errorf("List(nil) = %s, want []", got)
	}
}
