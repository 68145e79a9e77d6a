package envres

import "strings"

// EnvFileLoad is a rule of the contract's table.
var EnvFileLoad = &Rule{
	Name: "env-file-load", Severity: SeverityWarning,
	Short: "an env file is loaded into the exported environment",
	Doc: `An env file is loaded into the exported environment of the worker, so every name it sets
overrides whatever the caller exported; or the file of a load cannot be resolved statically (a
dynamic path, a missing file), so what it changes is unknown. The finding lists the names the load
sets that reach the worker. Fix: load only the names you need, or make the path static.`,
	Run: runEnvFileLoad,
}

// env-file-load: every load that reaches a worker with the names it sets,
// every load whose file is not known, every env file that does not parse.
func runEnvFileLoad(p *Pass) {
	for _, l := range p.Loads {
		var msg string
		switch {
		case l.ParseError != "":
			msg = "the env file loaded here does not parse (" + l.ParseError + "): the rest of it is not checked"
		case l.Unreadable:
			msg = "the env file loaded here (" + l.What + ") cannot be read here: every name it sets is exported over the caller's value, but which names (a protected one among them or not) cannot be known until it is readable"
		case l.Unresolved:
			what := "the env file loaded here"
			if l.What != "" {
				what = "the env file loaded here (" + l.What + ")"
			}
			msg = what + " cannot be resolved statically: the names it sets reach the worker unchecked"
		default:
			msg = l.What + " is loaded into the exported environment: it sets " + strings.Join(l.Names, ", ") +
				" for the worker, over anything the caller exported"
		}
		p.ReportDiagnostic(Diagnostic{At: l.At, Message: msg + l.In + noWorker(l.NoWorker), Variables: l.Names, Reads: []FileRead{l.Read}})
	}
}
