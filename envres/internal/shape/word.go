package shape

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// IsEnvLike reports whether a sourced file only assigns and exports.
func IsEnvLike(f *syntax.File) bool {
	for _, s := range f.Stmts {
		switch c := s.Cmd.(type) {
		case *syntax.CallExpr:
			if len(c.Args) == 0 {
				continue
			}
			if w := c.Args[0].Lit(); w == "export" {
				continue
			}
			return false
		case *syntax.DeclClause:
			if c.Variant.Value != "export" && c.Variant.Value != "declare" {
				return false
			}
		default:
			return false
		}
		if s.Background || len(s.Redirs) > 0 {
			return false
		}
	}
	return true
}

// UnquotedGlob reports whether a word has a glob character outside quotes.
func UnquotedGlob(w *syntax.Word) bool {
	if w == nil {
		return true // made by the analysis: literal words
	}
	for _, p := range w.Parts {
		if l, ok := p.(*syntax.Lit); ok && strings.ContainsAny(l.Value, "*?[") {
			return true
		}
	}
	return false
}
