package specrule

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// LookPath finds the program a command's bare argv[0] names, as a launch
// runs it: the first executable regular file prog in the launch's PATH
// (path; an empty or relative entry is taken from dir), else on the
// caller's own PATH.
func LookPath(prog, path, dir string) (string, bool) {
	for _, d := range filepath.SplitList(path) {
		if d == "" {
			d = "."
		}
		c := filepath.Join(d, prog)
		if !filepath.IsAbs(c) {
			c = filepath.Join(dir, c)
		}
		if fi, err := os.Stat(c); err == nil && fi.Mode().IsRegular() && Executable(fi.Mode()) {
			return c, true
		}
	}
	p, err := exec.LookPath(prog)
	return p, err == nil
}

// FindProgram finds the file command[0] (prog) runs, by the rule a spec's
// command[0] is checked by and the launcher execs it by: a bare name by
// LookPath on path, else a path (relative to dir) that must be an
// executable file. p is where it was looked for (the resolved path of a
// path).
func FindProgram(prog, path, dir string) (p string, ok bool) {
	if !strings.Contains(prog, "/") {
		return LookPath(prog, path, dir)
	}
	p = prog
	if !filepath.IsAbs(p) {
		p = filepath.Join(dir, p)
	}
	fi, err := os.Stat(p)
	return p, err == nil && !fi.IsDir() && Executable(fi.Mode())
}

// Detail texts of a command[0] that findProgram does not find.
const (
	NotOnPath     = "is on neither the launch's PATH nor this one; command[0] is exec'd directly, without a shell"
	NotExecutable = "is not an executable file; command[0] is a path relative to dir, or a program on PATH"
)
