package spec

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// DefaultSpecFile is the spec a command uses when given none, from the
// current directory (as docker compose uses compose.yaml).
const DefaultSpecFile = "childproof.hcl"

// ErrNoDefaultSpec is DefaultSpec's error: the current directory has no
// DefaultSpecFile.
var ErrNoDefaultSpec = errors.New("no SPEC given, and there is no " + DefaultSpecFile + " in the current directory")

// DefaultSpec returns the spec argument of a command given none:
// DefaultSpecFile, unless the current directory has no such file
// (ErrNoDefaultSpec). A file there that cannot be read is left to the
// loader to report.
func DefaultSpec() (string, error) {
	if _, err := os.Stat(DefaultSpecFile); errors.Is(err, fs.ErrNotExist) {
		return "", ErrNoDefaultSpec
	}
	return DefaultSpecFile, nil
}

// ExpandSpecArg returns a given SPEC[:NAME] argument with ":NAME" short
// for DefaultSpecFile:NAME; any other argument as it is.
func ExpandSpecArg(arg string) string {
	if strings.HasPrefix(arg, ":") && len(arg) > 1 {
		return DefaultSpecFile + arg
	}
	return arg
}

// DefaultSpecIn returns dir's DefaultSpecFile when dir is a directory that
// holds one (a SPEC argument naming a directory likely meant it).
func DefaultSpecIn(dir string) (string, bool) {
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return "", false
	}
	p := filepath.Join(dir, DefaultSpecFile)
	if _, err := os.Stat(p); err != nil {
		return "", false
	}
	return p, true
}

// SpecArg is a SPEC[:NAME] argument: a spec file and, optionally, one of
// its launches. It is plain data, safe for concurrent use while no one
// changes it.
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
