// Package specrule holds the spec language's field rules that the HCL
// loader (package schema, through its struct validator) and a Launch built
// in Go (package spec, by hand) share: the name predicates, the words of
// each broken rule, and the checks that span several fields.
package specrule

import (
	"fmt"
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/childproof/childproof/redact"
)

// Problem is one broken rule, located by its namespace
// ("port[0].number") and explained in words. It is plain data, safe for
// concurrent use while no one changes it.
type Problem struct {
	NS, Summary, Detail string
}

// Fail is one failed constraint before it is explained: the namespace,
// the field's hcl name (with [i] for list elements), the constraint's tag
// (the validate tag's name), the offending value, and whether the value
// is hidden (it came from env() or file(); Val then names its source). It
// is plain data, safe for concurrent use while no one changes it.
type Fail struct {
	NS, Field, Tag string
	Val            any
	Hidden         bool
}

// StopSignals are the signals a stop block may name.
var StopSignals = []string{"SIGTERM", "SIGINT", "SIGQUIT", "SIGHUP", "SIGUSR1", "SIGUSR2"}

// IsEnvName reports whether s is a valid environment variable name,
// ^[A-Za-z_][A-Za-z0-9_]*$.
func IsEnvName(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c == '_' || 'A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' || i > 0 && '0' <= c && c <= '9') {
			return false
		}
	}
	return s != ""
}

// IsLaunchName reports whether s matches ^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$.
func IsLaunchName(s string) bool {
	if s == "" || len(s) > 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' || '0' <= c && c <= '9' || i > 0 && (c == '_' || c == '.' || c == '-')) {
			return false
		}
	}
	return true
}

// IsInheritPattern reports whether an inherit entry is a glob pattern.
func IsInheritPattern(s string) bool { return strings.ContainsAny(s, "*?[") }

// IsInheritEntry reports whether s is a valid inherit entry: a variable
// name, or a glob pattern (path.Match syntax: *, ?, [class]) over the
// characters of variable names.
func IsInheritEntry(s string) bool {
	if !IsInheritPattern(s) {
		return IsEnvName(s)
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c == '_' || 'A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' || '0' <= c && c <= '9' || strings.IndexByte("*?[]!^-", c) >= 0) {
			return false
		}
	}
	_, err := path.Match(s, "")
	return err == nil
}

// IsSlurmTime reports whether s is a SLURM time limit: MM, MM:SS,
// HH:MM:SS, D-HH, D-HH:MM or D-HH:MM:SS, each part one or more digits.
func IsSlurmTime(s string) bool {
	digits := func(p string) bool {
		if p == "" || len(p) > 9 {
			return false
		}
		for i := 0; i < len(p); i++ {
			if p[i] < '0' || p[i] > '9' {
				return false
			}
		}
		return true
	}
	all := func(ps []string) bool {
		for _, p := range ps {
			if !digits(p) {
				return false
			}
		}
		return true
	}
	if day, rest, ok := strings.Cut(s, "-"); ok {
		ps := strings.Split(rest, ":")
		return digits(day) && len(ps) <= 3 && all(ps)
	}
	ps := strings.Split(s, ":")
	return len(ps) <= 3 && all(ps)
}

// IsPrintASCII reports whether every byte of s is printable ASCII.
func IsPrintASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] > 0x7e {
			return false
		}
	}
	return true
}

// IsAccount reports whether s can name a user or group: a name as
// useradd/groupadd accept it (at most 32 bytes, a trailing '$' for a
// machine account), or a numeric id below 2^32-1.
func IsAccount(s string) bool {
	if s == "" || len(s) > 32 {
		return false
	}
	if n, err := strconv.ParseUint(s, 10, 32); err == nil {
		return n < 1<<32-1
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c == '_':
		case (c >= '0' && c <= '9' || c == '.' || c == '-') && i > 0:
		case c == '$' && i == len(s)-1 && i > 0:
		default:
			return false
		}
	}
	return true
}

// QuotedToo adds, for each secret, its value as %q writes it inside the
// quotes when that differs (a value with a quote, a backslash or a
// control character).
func QuotedToo(secrets []redact.Secret) []redact.Secret {
	out := slices.Clone(secrets)
	for _, s := range secrets {
		if q := strconv.Quote(s.Value); q[1:len(q)-1] != s.Value {
			out = append(out, redact.Secret{Name: s.Name, Value: q[1 : len(q)-1]})
		}
	}
	return out
}

// NS joins a field path: NS("port", 1, "number") is "port[1].number".
func NS(parts ...any) string {
	var b strings.Builder
	for _, p := range parts {
		switch p := p.(type) {
		case int:
			fmt.Fprintf(&b, "[%d]", p)
		case string:
			if b.Len() > 0 {
				b.WriteByte('.')
			}
			b.WriteString(p)
		}
	}
	return b.String()
}
