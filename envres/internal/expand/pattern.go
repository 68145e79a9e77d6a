package expand

import (
	"regexp"
	"strings"
	"unicode/utf8"

	"mvdan.cc/sh/v3/pattern"
	"mvdan.cc/sh/v3/syntax"
)

// shellPattern compiles a shell pattern (mvdan.cc/sh/v3/pattern, as its
// expand package does) to match a whole string; nil when it is not a valid
// pattern (bash then matches it as a literal string).
func shellPattern(pat string) *regexp.Regexp {
	expr, err := pattern.Regexp(pat, pattern.EntireString)
	if err != nil {
		return nil
	}
	rx, err := regexp.Compile(expr)
	if err != nil {
		return nil
	}
	return rx
}

// ShellMatch reports whether s matches the shell pattern pat as case and
// [[ == ]] match it: * and ? cross '/', [!…] and [^…] negate, classes.
func ShellMatch(pat, s string) bool {
	if rx := shellPattern(pat); rx != nil {
		return rx.MatchString(s)
	}
	return pat == s
}

// trimPattern implements ${x%p}, ${x%%p}, ${x#p} and ${x##p} as bash does:
// the shortest or longest suffix or prefix of s that matches p as a whole
// is removed. It reports false for a pattern it cannot read
// (an extglob negation).
func trimPattern(s, pat string, op syntax.ParExpOperator) (string, bool) {
	rx := shellPattern(pat)
	if rx == nil {
		if _, err := pattern.Regexp(pat, 0); err != nil && strings.Contains(err.Error(), "extglob") {
			return "", false
		}
	}
	match := func(t string) bool {
		if rx == nil {
			return t == pat
		}
		return rx.MatchString(t)
	}
	n := len(s)
	// In a UTF-8 locale the shell cuts between characters, never inside
	// one: a cut at a continuation byte is no candidate.
	utf := utf8.ValidString(s)
	if strings.Contains(pat, "[:") && !isASCII(s) {
		// The locale's classes ([[:upper:]] holds Ä in C.UTF-8) are
		// not Go's ASCII ones: unknown.
		return "", false
	}
	cut := func(i int) bool { return !utf || i == n || utf8.RuneStart(s[i]) }
	switch op {
	case syntax.RemSmallSuffix:
		for i := n; i >= 0; i-- {
			if cut(i) && match(s[i:]) {
				return s[:i], true
			}
		}
	case syntax.RemLargeSuffix:
		for i := 0; i <= n; i++ {
			if cut(i) && match(s[i:]) {
				return s[:i], true
			}
		}
	case syntax.RemSmallPrefix:
		for i := 0; i <= n; i++ {
			if cut(i) && match(s[:i]) {
				return s[i:], true
			}
		}
	case syntax.RemLargePrefix:
		for i := n; i >= 0; i-- {
			if cut(i) && match(s[:i]) {
				return s[i:], true
			}
		}
	}
	return s, true
}

// isASCII reports whether s is all ASCII.
func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}
