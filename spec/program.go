package spec

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/childproof/childproof/internal/specrule"
	"github.com/childproof/childproof/redact"
)

// LookPath finds the program a command's bare argv[0] names, as a launch
// runs it: the first executable regular file prog in the launch's PATH
// (path; an empty or relative entry is taken from dir), else on the
// caller's own PATH.
func LookPath(prog, path, dir string) (string, bool) { return specrule.LookPath(prog, path, dir) }

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
		if p, ok := specrule.FindProgram(prog, path, dir); !ok {
			d := strconv.Quote(prog) + " " + specrule.NotOnPath
			if strings.Contains(prog, "/") {
				d = fmt.Sprintf("%q (%s) %s", prog, p, specrule.NotExecutable)
			}
			e.Problems = append(e.Problems, FieldProblem{Field: "command[0]", Summary: "Program not found", Detail: d})
		}
	}
	if d := specrule.WorkerCountDetail(l.Worker.Count, l.Worker.Comm, l.Worker.Exe); d != "" && len(l.Roles) == 0 {
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
	mask := redact.Of(specrule.QuotedToo(l.SecretValues), nil)
	for i := range e.Problems {
		e.Problems[i].Detail = mask.Text(e.Problems[i].Detail)
	}
	return e
}
