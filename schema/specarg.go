package schema

import (
	"os"
	"strings"
)

// SpecArg is a SPEC[:NAME] argument: a spec file and, optionally, one of
// its launches.
type SpecArg struct {
	// Path is the spec file's path as given.
	Path string
	// Name is the selected launch; empty selects none.
	Name string
}

// ParseSpecArg splits SPEC[:NAME]. An argument that names an existing file
// is a path, even when it holds a ':'. Otherwise it splits at the last ':'
// when what follows looks like a launch name (no '/').
func ParseSpecArg(arg string) SpecArg {
	if _, err := os.Stat(arg); err == nil {
		return SpecArg{Path: arg}
	}
	i := strings.LastIndexByte(arg, ':')
	if i <= 0 || i == len(arg)-1 || strings.ContainsRune(arg[i+1:], '/') {
		return SpecArg{Path: arg}
	}
	return SpecArg{Path: arg[:i], Name: arg[i+1:]}
}

// IsSpecArg reports whether arg names a spec file (SPEC or SPEC:NAME: its
// path ends in .hcl or is a file that exists) rather than a launch name.
func IsSpecArg(arg string) bool {
	sa := ParseSpecArg(arg)
	if strings.HasSuffix(sa.Path, ".hcl") {
		return true
	}
	fi, err := os.Stat(sa.Path)
	return err == nil && !fi.IsDir()
}
