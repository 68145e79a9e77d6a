package envres

// NoopAlias is a rule of the contract's table.
var NoopAlias = &Rule{
	Name: "noop-alias", Severity: SeverityWarning,
	Short: "a known no-op alias is set",
	Doc: `The script sets a variable name that looks like a real setting but is read by nothing (for
example HF_XET_DISABLE, whose real name is HF_HUB_DISABLE_XET): the change looks applied and does
nothing. Fix: set the real name.`,
	Run: runNoopAlias,
}

// noop-alias: every assignment or export of a known no-op alias.
func runNoopAlias(p *Pass) {
	for _, s := range p.AliasSets {
		p.Report(s.At, s.Name+" is a no-op alias: nothing reads it; the variable that is read is "+s.Real, s.Name)
	}
}
