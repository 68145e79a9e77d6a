package lintreport

import (
	"strings"
	"unicode"
)

// Snippet quotes a source line under a message, with a marker line under
// a range of it: the line cut to MaxSnippet runes around the range (Clip),
// and, for the line below it, the blanks that reach the range and one
// caret per rune of it. Both text output of lint findings and spec
// diagnostics use it.
//
// col is the range's 1-based rune column; width is how many runes it
// covers, to the end of the line when width < 0 or the range runs past
// it, and at least one caret. With expandTabs a tab shows as one blank in
// both lines; otherwise tabs stay in both, so that a terminal puts them at
// the same stops. A rune that prints nothing (a control character) takes
// no blank.
func Snippet(line string, col, width int, expandTabs bool) (text, blanks, carets string) {
	line, col = Clip(line, col)
	rs := []rune(line)
	start := min(max(col-1, 0), len(rs))
	end := start + width
	if width < 0 || end > len(rs) {
		end = len(rs)
	}
	if end <= start {
		end = start + 1
	}
	var b strings.Builder
	for _, c := range rs[:start] {
		switch {
		case c == '\t' && !expandTabs:
			b.WriteByte('\t')
		case c == '\t' || unicode.IsPrint(c):
			b.WriteByte(' ')
		}
	}
	if expandTabs {
		line = strings.ReplaceAll(line, "\t", " ")
	}
	return line, b.String(), strings.Repeat("^", end-start)
}
