package redact

import (
	"regexp"
	"strings"
	"sync"
)

// Guessed is what LooksSecret puts in place of a value it masks.
const Guessed = "<masked>"

// secretWordRE matches a flag or variable name that says its value is a
// secret: token, key, password, secret, credential, auth… as a word of
// the name (--api-key, --db_password, GITHUB_TOKEN; not --monkey).
var secretWordRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)(^|[-_.])(token|key|apikey|passwd|password|pass|pwd|secret|credentials?|auth|authorization|bearer|cookie|session|signature|private)($|[-_.])`)
})

// userinfoRE finds the password of a URL's user info: scheme://user:PASS@.
var userinfoRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`([A-Za-z][A-Za-z0-9+.-]*://[^/@:\s]*:)([^/@\s]+)(@)`)
})

// secretName reports whether a flag (without its dashes) or variable name
// names a secret.
func secretName(name string) bool {
	return name != "" && secretWordRE().MatchString(name)
}

// LooksSecret masks what looks like a secret in the argv of a process no
// record describes (explain --pid of another user's process): the element
// after a flag named like one (--token X, -password X), the value of
// --flag=VALUE and NAME=VALUE forms of such names, and a URL's password
// (scheme://user:PASS@host). Each masked value becomes Guessed; masked
// reports whether any was. It is a guess, for output that gets pasted
// into logs, not a guarantee: a secret in a position it does not know
// stays.
func LooksSecret(argv []string) (out []string, masked bool) {
	out = make([]string, len(argv))
	maskNext := false
	for i, a := range argv {
		switch {
		case maskNext && a != "" && !strings.HasPrefix(a, "-"):
			out[i], masked, maskNext = Guessed, true, false
			continue
		case maskNext:
			maskNext = false
		}
		out[i] = a
		if i == 0 {
			continue
		}
		name, value, hasValue := strings.Cut(a, "=")
		flag := strings.TrimLeft(name, "-")
		switch {
		case hasValue && value != "" && secretName(flag) && !strings.ContainsAny(flag, " /"):
			out[i], masked = name+"="+Guessed, true
		case !hasValue && strings.HasPrefix(a, "-") && secretName(flag):
			maskNext = true
		}
		if m := userinfoRE().ReplaceAllString(out[i], "${1}"+Guessed+"${3}"); m != out[i] {
			out[i], masked = m, true
		}
	}
	return out, masked
}
