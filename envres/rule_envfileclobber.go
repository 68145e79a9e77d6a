package envres

// EnvFileClobber is a rule of the contract's table.
var EnvFileClobber = &Rule{
	Name: "env-file-clobber", Severity: SeverityError,
	Short: "an env file loaded into the exported environment changes a protected variable",
	Doc: `An env file is loaded into the exported environment (set -a + source, export $(… .env …),
eval "$(cat .env)", source <(…), while read … export, env $(cat .env) CMD, or a plain source that
reassigns a name the caller exported) and assigns a protected variable a value other than the
override's, or a value that cannot be known statically. The worker then runs with the file's value,
while the launcher's own environ still shows the override. Fix: load the file before the override
is applied, remove the name from the file, or re-export the override after the load.`,
	Run: runEnvFileClobber,
}

// env-file-clobber: every load that changes a protected variable.
func runEnvFileClobber(p *Pass) {
	for _, c := range p.Changes {
		var msg string
		switch {
		case c.Kind == ChangeFill:
			msg = c.Load + " is loaded only into names that are unset or empty, and the override of protected variable " +
				c.Var + " is empty: the worker gets the file's value, not the override"
		case c.Kind == ChangeLoad && c.Later:
			msg = c.Load + " is loaded into the exported environment and assigns protected variable " + c.Var + " " + c.Value +
				"; a later statement changes it again"
		case c.Kind == ChangeLoad:
			msg = c.Load + " is loaded into the exported environment and assigns protected variable " + c.Var + " " + c.Value +
				": the worker gets the file's value, not the override"
		default:
			continue
		}
		p.ReportDiagnostic(Diagnostic{At: c.At, Message: msg + c.In + noWorker(c.NoWorker), Variables: []string{c.Var},
			Sources: []EnvSource{c.Source}, Reads: []FileRead{c.Read}})
	}
}

// noWorker ends the message of a change or load that reaches the end of a
// file that starts no worker.
func noWorker(set bool) string {
	if set {
		return helperNote
	}
	return ""
}

// helperNote ends the load findings of a script that starts no worker.
const helperNote = " (this file starts no worker: the load reaches whatever sources it)"
