package redact

import (
	"regexp"
	"strings"
	"sync"
)

// placeholderRE finds the placeholders Placeholder writes: <NAME> of an
// environment name, or <file:PATH>.
var placeholderRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`<(?:[A-Za-z_][A-Za-z0-9_]*|file:[^<>]+)>`)
})

// MayShow reports whether shown, a string as a writer masked it, may be
// the masked form of value: equal, or equal outside its placeholders with
// each placeholder standing for one byte or more. A record keeps a path
// built from a secret masked (<MODEL_DIR>/bin/server), and a command that
// does not know the secret compares it with the live path by this.
func MayShow(shown, value string) bool {
	if shown == value {
		return true
	}
	if !strings.Contains(shown, "<") {
		return false
	}
	locs := placeholderRE().FindAllStringIndex(shown, -1)
	if len(locs) == 0 {
		return false
	}
	var b strings.Builder
	b.WriteString("^")
	prev := 0
	for _, l := range locs {
		b.WriteString(regexp.QuoteMeta(shown[prev:l[0]]))
		b.WriteString("(?s:.+)")
		prev = l[1]
	}
	b.WriteString(regexp.QuoteMeta(shown[prev:]))
	b.WriteString("$")
	re, err := regexp.Compile(b.String())
	return err == nil && re.MatchString(value)
}
