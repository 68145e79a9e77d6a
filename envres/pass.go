package envres

// The split between the walk and the rules, as in go/analysis: the walk
// (envres/interp) follows every path and records facts — the
// flow-sensitive ones (a change of a protected variable, a load, a
// wrapper) where it finds that they reach a worker; every rule reports
// from the facts alone in its Run, so adding a rule is one file (its Rule
// value and its Run) plus, if it needs a new kind of fact, the line of the
// walk that records it. Rules report; the driver (lintreport) formats.

// Pass holds the facts of one analysis (every script linted) for the
// rules' Run functions, and reports their findings. A Pass is not safe for
// concurrent use: a rule's Run reports from one goroutine.
type Pass struct {
	// Protected are the protected variables' names, sorted.
	Protected   []string
	Changes     []Change
	Loads       []Load
	Wrapped     []Wrapper
	Unchecked   []Unchecked
	Unparsed    []Unchecked
	Activations []Activation
	Background  []Background
	// Binds are the worker arguments that bind all interfaces.
	Binds []Bind
	// Pidfiles are the commands that write $! to a file.
	Pidfiles  []Site
	AliasSets []AliasSet

	fs   *findings
	rule *Rule // the rule being run
}

// Diagnostic is a finding a rule reports (as go/analysis's). It is plain
// data, safe for concurrent use while no one changes it.
type Diagnostic struct {
	At      Site
	Message string
	// Variables are the variables the finding is about.
	Variables []string
	// Sources and Reads are carried to Finding.Sources and Finding.Reads.
	Sources []EnvSource
	Reads   []FileRead
}

// Report records a finding of the rule being run at a site; findings of
// one rule at one place are merged (their variables joined).
func (p *Pass) Report(at Site, msg string, vars ...string) {
	p.fs.report(p.rule, Diagnostic{At: at, Message: msg, Variables: vars})
}

// ReportDiagnostic records d as a finding of the rule being run, merged
// as Report's.
func (p *Pass) ReportDiagnostic(d Diagnostic) { p.fs.report(p.rule, d) }

// runRules hands an analysis's facts to every rule that has a Run.
func runRules(fs *findings) {
	f := &fs.an.Facts
	p := &Pass{Protected: f.Protected, Changes: f.Changes, Loads: f.Loads, Wrapped: f.Wrapped, Unchecked: f.Unchecked,
		Unparsed: f.Unparsed, Activations: f.Activations, Background: f.Background, Binds: f.Binds, Pidfiles: f.Pidfiles,
		AliasSets: f.AliasSets, fs: fs}
	for _, r := range Rules() {
		p.rule = r
		r.Run(p)
	}
}
