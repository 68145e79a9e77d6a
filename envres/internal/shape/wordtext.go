package shape

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// WordText returns a word as written.
func WordText(w *syntax.Word) string {
	if w == nil {
		return ""
	}
	var b strings.Builder
	if err := syntax.NewPrinter().Print(&b, w); err != nil {
		return ""
	}
	return b.String()
}

// Heredoc returns the here-document a statement feeds to stdin, if any.
func Heredoc(s *syntax.Stmt) *syntax.Word {
	if s == nil {
		return nil
	}
	for _, r := range s.Redirs {
		if (r.Op == syntax.Hdoc || r.Op == syntax.DashHdoc) && r.Hdoc != nil && len(r.Hdoc.Parts) > 0 {
			return r.Hdoc
		}
	}
	return nil
}

// NodeText prints a node as shell source, on one line, for messages.
func NodeText(n syntax.Node) string {
	var b strings.Builder
	if err := syntax.NewPrinter(syntax.SingleLine(true)).Print(&b, n); err != nil {
		return ""
	}
	return strings.TrimSpace(b.String())
}
