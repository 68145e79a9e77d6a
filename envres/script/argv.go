package script

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// ArgvIndex returns the index of the argument of argv that a finding in
// CommandFile at byte column col points at (the file is argv shell-quoted
// on one line), or -1.
func ArgvIndex(argv []string, col int) int {
	c := 1
	for i := range argv {
		n := len(QuoteArgv(argv[i : i+1]))
		if col >= c && col < c+n {
			return i
		}
		c += n + 1
	}
	return -1
}

// QuoteArgv returns argv shell-quoted for bash, on one line (the text of
// CommandFile).
func QuoteArgv(argv []string) string {
	var b strings.Builder
	for i, s := range argv {
		if i > 0 {
			b.WriteByte(' ')
		}
		q, err := syntax.Quote(s, syntax.LangBash)
		if err != nil {
			q = s
		}
		b.WriteString(q)
	}
	return b.String()
}
