package hcltext

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Quote returns s as an HCL quoted string (see Escape).
func Quote(s string) string { return `"` + Escape(s) + `"` }

// Escape returns s escaped for the inside of an HCL quoted string:
// quotes, backslashes, newlines, tabs and returns escaped, a rune that
// does not print as \uNNNN (\UNNNNNNNN beyond the BMP), and "${" / "%{"
// doubled so that nothing in s is read as a template. HCL text is UTF-8:
// a byte that is not is written as U+FFFD.
func Escape(s string) string {
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "\uFFFD")
	}
	var b strings.Builder
	b.Grow(len(s))
	for i, r := range s {
		switch r {
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '$', '%':
			b.WriteRune(r)
			if i+1 < len(s) && s[i+1] == '{' {
				b.WriteRune(r)
			}
		default:
			switch {
			case unicode.IsPrint(r):
				b.WriteRune(r)
			case r < 0x10000:
				fmt.Fprintf(&b, `\u%04x`, r)
			default:
				fmt.Fprintf(&b, `\U%08x`, r)
			}
		}
	}
	return b.String()
}

// List returns ss as an HCL tuple of quoted strings: ["a", "b"].
func List(ss []string) string {
	var b strings.Builder
	b.WriteByte('[')
	for i, s := range ss {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(Quote(s))
	}
	b.WriteByte(']')
	return b.String()
}

// Int returns n as an HCL number.
func Int(n int) string { return strconv.Itoa(n) }

// Bool returns b as an HCL bool.
func Bool(b bool) string { return strconv.FormatBool(b) }
