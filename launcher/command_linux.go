package launcher

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/childproof/childproof/spec"
)

// argv returns the argv to exec and its resolved program path: a dispatch
// script runs under bash without rc files; a command's program is searched
// in the launch's own PATH, relative to its directory.
func (la *Launch) argv() ([]string, string, error) {
	l := la.Spec
	if len(l.Dispatch) > 0 {
		bash, err := exec.LookPath("bash")
		if err != nil {
			bash = "/bin/bash"
		}
		script := l.Dispatch[0]
		argv := append([]string{"bash", "--noprofile", "--norc", script}, l.Dispatch[1:]...)
		return argv, bash, nil
	}
	prog := l.Command[0]
	if !strings.Contains(prog, "/") {
		found, ok := spec.LookPath(prog, la.Env.Vars["PATH"], la.dir())
		if !ok {
			return nil, "", fmt.Errorf("%s: not found in PATH", prog)
		}
		return l.Command, found, nil
	}
	if !filepath.IsAbs(prog) {
		prog = filepath.Join(la.dir(), prog)
	}
	return l.Command, prog, nil
}

// dir is the launch's working directory: Dir, else the spec file's
// directory, else the caller's (as its start's check found it).
func (la *Launch) dir() string {
	if la.workDir != "" {
		return la.workDir
	}
	return launchDir(la.Spec)
}

// launchDir is l's working directory: Dir, else the spec file's
// directory, else the caller's.
func launchDir(l *spec.Launch) string {
	if l.Dir != "" {
		return l.Dir
	}
	if l.SpecPath != "" {
		return filepath.Dir(l.SpecPath)
	}
	d, _ := os.Getwd()
	return d
}
