package expand

import (
	"strconv"
	"strings"
)

// WordBuf builds an evaluated word; a word of one piece (most words)
// is that piece's string, not a copy. It is not safe for concurrent use.
type WordBuf struct {
	first string
	n     int
	b     strings.Builder
}

func (w *WordBuf) WriteString(s string) {
	if s == "" {
		return
	}
	switch w.n {
	case 0:
		w.first = s
	case 1:
		w.b.Grow(len(w.first) + len(s) + 16)
		w.b.WriteString(w.first)
		w.b.WriteString(s)
	default:
		w.b.WriteString(s)
	}
	w.n++
}

func (w *WordBuf) Len() int {
	if w.n <= 1 {
		return len(w.first)
	}
	return w.b.Len()
}

func (w *WordBuf) String() string {
	if w.n <= 1 {
		return w.first
	}
	return w.b.String()
}

// UnescapeLit removes the backslashes of an unquoted literal.
func UnescapeLit(s string) string {
	if !strings.Contains(s, "\\") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			i++
			if s[i] == '\n' {
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// UnescapeDq removes the backslashes of a literal in double quotes.
func UnescapeDq(s string) string {
	if !strings.Contains(s, "\\") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			switch s[i+1] {
			case '"', '\\', '$', '`':
				i++
			case '\n':
				i++
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// ANSIC is the value of $'…'.
func ANSIC(s string) string {
	if uq, err := strconv.Unquote(`"` + strings.ReplaceAll(s, `"`, `\"`) + `"`); err == nil {
		return uq
	}
	return s
}
