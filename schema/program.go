package schema

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/childproof/childproof/redact"
	"github.com/hashicorp/hcl/v2"
)

// onPath reports whether a bare program name will be found when the
// launch runs: on the launch's own PATH (its env's PATH, else the
// caller's, which inherit passes by default), relative entries taken from
// dir, or else on the caller's PATH, as the launcher looks it up.
func (l *loader) onPath(prog string, la *Launch) bool {
	path, ok := la.Env["PATH"]
	if !ok {
		path, _ = l.lookup("PATH")
	}
	_, found := LookPath(prog, path, la.Dir)
	return found
}

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
		if fi, err := os.Stat(c); err == nil && fi.Mode().IsRegular() && executable(fi.Mode()) {
			return c, true
		}
	}
	p, err := exec.LookPath(prog)
	return p, err == nil
}

// findProgram finds the file command[0] (prog) runs, by the rule a spec's
// command[0] is checked by and the launcher execs it by: a bare name by
// LookPath on path, else a path (relative to dir) that must be an
// executable file. p is where it was looked for (the resolved path of a
// path).
func findProgram(prog, path, dir string) (p string, ok bool) {
	if !strings.Contains(prog, "/") {
		return LookPath(prog, path, dir)
	}
	p = prog
	if !filepath.IsAbs(p) {
		p = filepath.Join(dir, p)
	}
	fi, err := os.Stat(p)
	return p, err == nil && !fi.IsDir() && executable(fi.Mode())
}

// Detail texts of a command[0] that findProgram does not find.
const (
	notOnPath     = "is on neither the launch's PATH nor this one; command[0] is exec'd directly, without a shell"
	notExecutable = "is not an executable file; command[0] is a path relative to dir, or a program on PATH"
)

// CheckRun checks what Validate cannot see in the Launch alone, by the
// rules the spec loader applies to a launch it loads: command[0] must be
// found (a bare name on path, the PATH the launch runs with, else the
// caller's; a path, relative to dir, must be an executable file), a
// worker count above one needs a selector, and a worker exe must be one
// a process can have and must exist by now (the loader only warns of a
// missing one: it may be built before the run). It returns nil or an *InvalidError naming the field
// (command[0], worker.count, worker.exe).
func (l *Launch) CheckRun(path, dir string) error {
	e := &InvalidError{Launch: l.Name}
	if len(l.Command) > 0 && l.Command[0] != "" {
		prog := l.Command[0]
		if p, ok := findProgram(prog, path, dir); !ok {
			d := strconv.Quote(prog) + " " + notOnPath
			if strings.Contains(prog, "/") {
				d = fmt.Sprintf("%q (%s) %s", prog, p, notExecutable)
			}
			e.Problems = append(e.Problems, FieldProblem{Field: "command[0]", Summary: "Program not found", Detail: d})
		}
	}
	if d := workerCountDetail(l.Worker); d != "" && len(l.Roles) == 0 {
		e.Problems = append(e.Problems, FieldProblem{Field: "worker.count", Summary: "Worker count without a selector", Detail: d})
	}
	if err := ExeNeverMatches(l.Worker.Exe); err != nil {
		e.Problems = append(e.Problems, FieldProblem{Field: "worker.exe", Summary: "Worker exe can never match", Detail: err.Error()})
	}
	if len(e.Problems) == 0 {
		return nil
	}
	// Paths built from env() or file(): the problems name <NAME>, never
	// the value.
	mask := redact.Of(quotedToo(l.SecretValues), nil)
	for i := range e.Problems {
		e.Problems[i].Detail = mask.Text(e.Problems[i].Detail)
	}
	return e
}

// programf reports a command[0] that cannot be found: an error, or a
// warning under LoadOptions.MissingProgramOK.
func (l *loader) programf(rng *hcl.Range, summary, format string, args ...any) {
	if l.opts.MissingProgramOK || l.programsOptional {
		l.warnf(rng, summary, format, args...)
		return
	}
	l.errorf(rng, summary, format, args...)
}
