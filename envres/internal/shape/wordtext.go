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
