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
	// Facts are the analysis's facts (Protected, Changes, Loads, Wrapped,
	// Unchecked, Unparsed, Activations, Background, Binds, Pidfiles,
	// AliasSets), which the rules read.
	Facts

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
	p := &Pass{Facts: fs.an.Facts, fs: fs}
	for _, r := range Rules() {
		p.rule = r
		r.Run(p)
	}
}
