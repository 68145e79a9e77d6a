package lintreport

import (
	"fmt"
	"unicode/utf8"
)

// MaxSnippet bounds, in runes, the source line that text output quotes
// under a finding or diagnostic; a longer line (a 20 MB one-liner) is cut
// around the column at fault.
const MaxSnippet = 200

// Clip cuts line to at most MaxSnippet runes around the 1-based rune
// column col, marking each cut with "…" and the end with the line's whole
// length. It returns the clipped line and the position of col in it.
func Clip(line string, col int) (string, int) {
	n := utf8.RuneCountInString(line)
	if n <= MaxSnippet {
		return line, col
	}
	rs := []rune(line)
	start := max(0, min(col-1-MaxSnippet/3, n-MaxSnippet))
	end := min(n, start+MaxSnippet)
	out := string(rs[start:end])
	if start > 0 {
		out = "…" + out
		col = col - start + 1
	}
	if end < n {
		out += fmt.Sprintf("… [line cut: %d bytes]", len(line))
	}
	return out, col
}

// byteToRuneCol converts a 1-based byte column on line to a rune column.
func byteToRuneCol(line string, col int) int {
	if col < 1 {
		return 1
	}
	if col-1 > len(line) {
		col = len(line) + 1
	}
	return utf8.RuneCountInString(line[:col-1]) + 1
}
