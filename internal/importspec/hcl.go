package importspec

import (
	"fmt"
	"strings"

	"github.com/childproof/childproof/envres"
)

// quote returns s as an HCL quoted string: quotes, backslashes and control
// characters escaped, and "${" / "%{" doubled so that nothing in s is read
// as a template.
//
// HCL text is UTF-8: a byte that is not is written as U+FFFD (the builder
// notes a TODO where a value has one).
func quote(s string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"':
			b.WriteString(`\"`)
		case c == '\\':
			b.WriteString(`\\`)
		case c == '\n':
			b.WriteString(`\n`)
		case c == '\r':
			b.WriteString(`\r`)
		case c == '\t':
			b.WriteString(`\t`)
		case (c == '$' || c == '%') && i+1 < len(s) && s[i+1] == '{':
			b.WriteByte(c)
			b.WriteByte(c)
		case c < 0x20 || c == 0x7f:
			fmt.Fprintf(&b, `\u%04x`, c)
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// envCall is the env() call for a caller variable.
func envCall(p envres.Part) string {
	if p.HasDefault {
		return "env(" + quote(p.Env) + ", " + quote(p.Default) + ")"
	}
	return "env(" + quote(p.Env) + ")"
}

// expr writes a word as an HCL expression: a quoted string, a bare env()
// call, or a template mixing both. vars maps caller variables turned into
// spec variables (the port) to the variable's name.
func expr(parts []envres.Part, vars map[string]string) string {
	if len(parts) == 1 && parts[0].Env != "" {
		if v, ok := vars[parts[0].Env]; ok {
			return "var." + v
		}
		return envCall(parts[0])
	}
	var b strings.Builder
	b.WriteByte('"')
	for _, p := range parts {
		switch {
		case p.Env == "":
			q := quote(p.Lit)
			b.WriteString(q[1 : len(q)-1])
		case vars[p.Env] != "":
			b.WriteString("${var." + vars[p.Env] + "}")
		default:
			b.WriteString("${" + envCall(p) + "}")
		}
	}
	b.WriteByte('"')
	return b.String()
}
