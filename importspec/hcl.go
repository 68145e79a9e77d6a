package importspec

import (
	"strings"

	"github.com/childproof/childproof/envres"
	"github.com/childproof/childproof/internal/hcltext"
)

// envCall is the env() call for a caller variable.
func envCall(p envres.Part) string {
	if p.HasDefault {
		return "env(" + hcltext.Quote(p.Env) + ", " + hcltext.Quote(p.Default) + ")"
	}
	return "env(" + hcltext.Quote(p.Env) + ")"
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
			b.WriteString(hcltext.Escape(p.Lit))
		case vars[p.Env] != "":
			b.WriteString("${var." + vars[p.Env] + "}")
		default:
			b.WriteString("${" + envCall(p) + "}")
		}
	}
	b.WriteByte('"')
	return b.String()
}
