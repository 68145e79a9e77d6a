package expand

import (
	"path"
	"path/filepath"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// substCmds are the commands substEval evaluates.
var substCmds = map[string]bool{"cd": true, "pwd": true, "dirname": true, "basename": true, "realpath": true, "readlink": true, "echo": true, "printf": true}

// substEval evaluates the command substitutions scripts use to find their
// own directory: dirname, basename, pwd, cd, realpath, readlink -f, echo,
// printf '%s', joined by && or ;. Anything else is unknown. It records no
// facts: the commands run in a substRun, whose directory starts as the
// script's.
func (e *Evaluator[E, C]) substEval(stmts []*syntax.Stmt) (string, bool) {
	if len(stmts) == 0 {
		return "", true
	}
	r := substRun[E, C]{ev: *e, cwd: e.Scope.Cwd}
	for _, s := range stmts {
		if s.Background || s.Negated {
			return "", false
		}
		if !r.stmt(s) {
			return "", false
		}
	}
	return strings.TrimRight(r.out, "\n"), true
}

// substRun is one substEval: the substitution's own directory (cd changes
// it, not the script's) and the output of its last command.
type substRun[E, C any] struct {
	ev  Evaluator[E, C]
	cwd string
	out string
}

// stmt runs one statement of the substitution: a && list or a simple
// command without assignments. Anything else is unknown (false).
func (r *substRun[E, C]) stmt(s *syntax.Stmt) bool {
	switch c := s.Cmd.(type) {
	case *syntax.BinaryCmd:
		if c.Op != syntax.AndStmt {
			return false
		}
		return r.stmt(c.X) && r.stmt(c.Y)
	case *syntax.CallExpr:
		if len(c.Args) == 0 || len(c.Assigns) > 0 {
			return false
		}
		if n := c.Args[0].Lit(); n != "" && !substCmds[n] && !strings.Contains(n, "\\") {
			// A command this evaluation does not know: its output is
			// unknown, whatever its arguments are.
			return false
		}
		return r.call(c)
	}
	return false
}

// call evaluates a simple command's words in the substitution's directory
// and, when all are known, runs it: dirCmd for cd and pwd, pathCmd for
// dirname, basename, realpath and readlink, printCmd for echo and printf.
func (r *substRun[E, C]) call(c *syntax.CallExpr) bool {
	saveCwd := r.ev.Scope.Cwd
	r.ev.Scope.Cwd = r.cwd
	fs := r.ev.Fields(c.Args)
	r.ev.Scope.Cwd = saveCwd
	for _, f := range fs {
		if !f.Known {
			return false
		}
	}
	name := fs[0].Str
	args := []string{}
	for _, f := range fs[1:] {
		args = append(args, f.Str)
	}
	switch name {
	case "cd", "pwd":
		return r.dirCmd(name, args)
	case "dirname", "basename", "realpath", "readlink":
		return r.pathCmd(name, args)
	case "echo", "printf":
		return r.printCmd(name, args)
	}
	return false
}

// substOperands are a command's operands: its arguments without the
// options before "--" (a lone "-" is an operand) and without that "--".
func substOperands(args []string) []string {
	var r []string
	dd := false
	for _, x := range args {
		if !dd && x == "--" {
			dd = true
			continue
		}
		if !dd && strings.HasPrefix(x, "-") && x != "-" {
			continue
		}
		r = append(r, x)
	}
	return r
}

// dirCmd runs cd DIR (moves the substitution's directory, no output) and
// pwd (outputs it); unknown when the directory is.
func (r *substRun[E, C]) dirCmd(name string, args []string) bool {
	if name == "pwd" {
		if r.cwd == "" {
			return false
		}
		r.out = r.cwd
		return true
	}
	p := substOperands(args)
	if len(p) != 1 {
		return false
	}
	if r.cwd = JoinPath(r.cwd, p[0]); r.cwd == "" {
		return false
	}
	r.out = ""
	return true
}

// pathCmd runs dirname PATH, basename PATH [SUFFIX], realpath PATH and
// readlink -f PATH (a readlink without options is unknown); realpath and
// readlink resolve symbolic links when the path exists.
func (r *substRun[E, C]) pathCmd(name string, args []string) bool {
	p := substOperands(args)
	switch name {
	case "dirname":
		if len(p) != 1 {
			return false
		}
		r.out = shellDirname(p[0])
	case "basename":
		if len(p) < 1 {
			return false
		}
		r.out = path.Base(p[0])
		if len(p) > 1 {
			r.out = strings.TrimSuffix(r.out, p[1])
		}
	default: // realpath, readlink
		if len(p) != 1 || (name == "readlink" && len(p) == len(args)) {
			return false
		}
		j := JoinPath(r.cwd, p[0])
		if j == "" {
			return false
		}
		if res, err := filepath.EvalSymlinks(j); err == nil {
			j = res
		}
		r.out = j
	}
	return true
}

// printCmd runs echo (its operands joined by blanks) and printf '%s' ARG or
// printf TEXT without directives or escapes; any other printf is unknown.
func (r *substRun[E, C]) printCmd(name string, args []string) bool {
	if name == "echo" {
		r.out = strings.Join(substOperands(args), " ")
		return true
	}
	if len(args) == 2 && args[0] == "%s" {
		r.out = args[1]
	} else if len(args) == 1 && !strings.ContainsAny(args[0], "%\\") {
		r.out = args[0]
	} else {
		return false
	}
	return true
}

// shellDirname is dirname(1).
func shellDirname(p string) string {
	if p == "" {
		return "."
	}
	t := strings.TrimRight(p, "/")
	if t == "" {
		return "/"
	}
	i := strings.LastIndex(t, "/")
	if i < 0 {
		return "."
	}
	d := strings.TrimRight(t[:i], "/")
	if d == "" {
		return "/"
	}
	return d
}

// JoinPath resolves p against the directory cwd ("" when unknown).
func JoinPath(cwd, p string) string {
	if p == "" {
		return ""
	}
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	if cwd == "" {
		return ""
	}
	return filepath.Join(cwd, p)
}
