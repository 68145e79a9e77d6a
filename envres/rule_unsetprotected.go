package envres

// UnsetProtected is a rule of the contract's table.
var UnsetProtected = &Rule{
	Name: "unset-protected", Severity: SeverityError,
	Short: "a protected variable is unset or un-exported before the worker",
	Doc: `unset NAME, env -u NAME or export -n NAME removes a protected or required variable from the
environment the worker inherits. Fix: remove the statement or scope it to the command that needs it.`,
	Run: runUnsetProtected,
}

// unset-protected: every unset or export -n of a protected variable.
func runUnsetProtected(p *Pass) {
	for _, c := range p.Changes {
		var msg string
		switch c.Kind {
		case ChangeUnset:
			msg = "unset removes protected variable " + c.Var + " before the worker"
		case ChangeUnexport:
			msg = "export -n removes protected variable " + c.Var + " from the worker's environment"
		default:
			continue
		}
		p.Report(c.At, msg+c.In+noWorker(c.NoWorker), c.Var)
	}
}
