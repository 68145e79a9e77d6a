package expand

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
