package envres

// DynamicSource is a rule of the contract's table.
var DynamicSource = &Rule{
	Name: "dynamic-source", Severity: SeverityWarning,
	Short: "a sourced or exec'd path cannot be resolved statically",
	Doc: `source, . or exec names a path that cannot be resolved statically (it depends on a variable,
a command's output or a directory that is not known), or the file is missing: what it does to the
environment is not checked. Fix: use a literal path relative to $(dirname "$0") or
${BASH_SOURCE%/*}.`,
	Run: runDynamicSource,
}

// dynamic-source: every source, exec or script run the walk cannot follow.
func runDynamicSource(p *Pass) {
	for _, u := range p.Unchecked {
		p.Report(u.At, u.Message)
	}
}
