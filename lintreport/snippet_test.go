package lintreport

import (
	"strings"
	"testing"
)

func TestSnippet(t *testing.T) {
	long := strings.Repeat("x", 300) + "BAD" + strings.Repeat("y", 300)
	tests := []struct {
		line                string
		col, width          int
		expandTabs          bool
		text, blanks, caret string
	}{
		{"a = 1", 5, 1, false, "a = 1", "    ", "^"},
		{"a = 10", 5, 2, true, "a = 10", "    ", "^^"},
		{"\ta = 1", 6, 1, false, "\ta = 1", "\t    ", "^"},
		{"\ta = 1", 6, 1, true, " a = 1", "     ", "^"},
		{"é = x", 5, 1, true, "é = x", "    ", "^"},
		{"a\x01b", 3, 1, true, "a\x01b", " ", "^"}, // a control character takes no blank
		{"abc", 2, -1, true, "abc", " ", "^^"},     // to the end of the line
		{"abc", 2, 10, true, "abc", " ", "^^"},     // past the end
		{"abc", 9, 1, true, "abc", "   ", "^"},     // after the end: one caret after the line
		{"abc", 2, 0, true, "abc", " ", "^"},       // at least one caret
		{"abc", 0, 1, false, "abc", "", "^"},       // a column before the line
		{long, 301, 3, true, "…" + long[301-MaxSnippet/3-1:301-MaxSnippet/3-1+MaxSnippet] + "… [line cut: 603 bytes]", strings.Repeat(" ", MaxSnippet/3+1), "^^^"},
	}
	for _, tt := range tests {
		text, blanks, caret := Snippet(tt.line, tt.col, tt.width, tt.expandTabs)
		if text != tt.text || blanks != tt.blanks || caret != tt.caret {
			t.Errorf("Snippet(%.20q, %d, %d, %v) = %.30q, %q, %q; want %.30q, %q, %q", tt.line, tt.col, tt.width, tt.expandTabs, text, blanks, caret, tt.text, tt.blanks, tt.caret)
		}
	}
}
