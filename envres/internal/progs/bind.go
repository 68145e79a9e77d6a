package progs

import "strings"

// AllInterfaces reports whether a worker argument binds every interface
// (0.0.0.0, [::], --bind=0.0.0.0:8000, http://0.0.0.0:8000).
func AllInterfaces(s string) bool {
	if i := strings.LastIndexByte(s, '='); i >= 0 {
		s = s[i+1:]
	}
	if i := strings.Index(s, "://"); i >= 0 {
		s = s[i+3:]
	}
	switch {
	case s == "0.0.0.0", strings.HasPrefix(s, "0.0.0.0:"), strings.HasPrefix(s, "0.0.0.0/"):
		return true
	case s == "::", s == "[::]", strings.HasPrefix(s, "[::]:"), s == ":::" || strings.HasPrefix(s, ":::") && digits(s[3:]):
		return true
	}
	return false
}

// digits reports whether s is a non-empty run of ASCII digits.
func digits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}
