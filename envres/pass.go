package envres

// The split between the walk and the rules, as in go/analysis: the walk
// (interp.go, commands.go, …) follows every path and records facts; a
// rule with a Run reports from the facts alone, so adding such a rule is
// one file (its Rule value and its Run) plus, if it needs a new kind of
// fact, the line of the walk that records it. The flow rules (the clobber,
// unset and reset rules, login and interactive shells, dynamic sources)
// need the abstract state at the point where they are found and are still
// reported by the walk.

// Site is a place in a file, with the chain of sources, execs and calls
// that led there.
type Site struct {
	Pos
	// Chain is the chain that led to the place, without the place itself.
	Chain []Pos
}

// Activation is an environment activation (conda activate, module load …).
type Activation struct {
	At        Site
	Mechanism string // as written, for the message
}

// Background is a launch in the background not waited for.
type Background struct {
	At     Site
	Nohup  bool
	Forked bool // setsid -f
}

// AliasSet is an assignment or export of a no-op alias.
type AliasSet struct {
	At         Site
	Name, Real string
}

// Pass holds the facts of one analysis (every script linted) for the
// rules' Run functions, and reports their findings.
type Pass struct {
	// Protected are the protected variables' names, sorted.
	Protected   []string
	Activations []Activation
	Background  []Background
	// Binds are the worker arguments that bind all interfaces.
	Binds []Site
	// Pidfiles are the commands that write $! to a file.
	Pidfiles  []Site
	AliasSets []AliasSet

	a    *analyzer
	rule *Rule // the rule being run
}

// Report records a finding of the rule being run at a site; findings of
// one rule at one place are merged (their variables joined).
func (p *Pass) Report(at Site, msg string, vars ...string) {
	p.a.report(p.rule, at, msg, vars...)
}

// maxFacts bounds each kind of fact, as maxFindings bounds findings.
const maxFacts = maxFindings

// fact appends v to list unless the list is full.
func fact[T any](list []T, v T) []T {
	if len(list) >= maxFacts {
		return list
	}
	return append(list, v)
}

// runRules hands the facts to every rule that has a Run.
func (a *analyzer) runRules() {
	a.pass.a = a
	a.pass.Protected = a.pass.Protected[:0]
	for _, p := range a.protList {
		a.pass.Protected = append(a.pass.Protected, p.name)
	}
	for _, r := range Rules() {
		if r.Run != nil {
			a.pass.rule = r
			r.Run(&a.pass)
		}
	}
}
