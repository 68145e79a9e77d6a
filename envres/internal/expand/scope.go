package expand

import (
	"strconv"
	"strings"
)

// Scope is what words are evaluated against: the variables, the working
// directory and the parameters of one shell process along one path. It
// is not safe for concurrent use.
type Scope[E any] struct {
	Vars    *Layer[E]
	Cwd     string // absolute; "" when unknown
	Args    []Field
	Dollar0 string
	Source  string // BASH_SOURCE[0], absolute
	// PidVars are variables holding $!.
	PidVars map[string]bool
}

// Get returns what is known of the variable name.
func (s *Scope[E]) Get(name string) (VarState[E], bool) { return s.Vars.Get(name) }

// Set records what is known of the variable name.
func (s *Scope[E]) Set(name string, v VarState[E]) { s.Vars.Put(name, v) }

// MarkPid records whether the variable name holds $!.
func (s *Scope[E]) MarkPid(name string, on bool) {
	if !on && !s.PidVars[name] {
		return
	}
	m := make(map[string]bool, len(s.PidVars)+1)
	for k, v := range s.PidVars {
		m[k] = v
	}
	if on {
		m[name] = true
	} else {
		delete(m, name)
	}
	s.PidVars = m
}

// Shift runs shift [N] on the positional parameters, when the ones
// it drops are known (shifting past the end leaves none).
func (s *Scope[E]) Shift(ops []Field) {
	n := 1
	if len(ops) > 0 && ops[0].Known {
		if v, err := strconv.Atoi(ops[0].Str); err == nil {
			n = v
		}
	}
	if !ArgsKnown(s.Args[:min(max(n, 0), len(s.Args))]) {
		return
	}
	if n <= len(s.Args) && n >= 0 {
		s.Args = s.Args[n:]
	} else {
		s.Args = nil
	}
}

// Chdir runs cd and pushd (the first operand, after the options, is
// joined to the directory; none, an unknown one or "-" makes it unknown) and
// popd (the directory becomes unknown).
func (s *Scope[E]) Chdir(name string, ops []Field) {
	if name == "popd" {
		s.Cwd = ""
		return
	}
	var dir *Field
	for i := range ops {
		if ops[i].Known && strings.HasPrefix(ops[i].Str, "-") && ops[i].Str != "-" {
			continue
		}
		dir = &ops[i]
		break
	}
	switch {
	case dir == nil || !dir.Known || dir.Str == "-":
		s.Cwd = ""
	default:
		s.Cwd = JoinPath(s.Cwd, dir.Str)
	}
}

// DotSlash returns a path as $0 and BASH_SOURCE hold it, with "./" added
// when it has no slash: bash would leave "run.sh", and ${0%/*} would then
// not be a directory; the script's author means the directory it is in.
func DotSlash(p string) string {
	if p == "" || strings.Contains(p, "/") {
		return p
	}
	return "./" + p
}
