package envres

import "github.com/childproof/childproof/internal/wrapper"

// EnvReset is a rule of the contract's table.
var EnvReset = &Rule{
	Name: wrapper.EnvReset, Severity: SeverityError,
	Short: "the environment is reset before the worker",
	Doc: `env -i, exec -c, sudo without -E/--preserve-env, su and runuser start the next command with a
fresh environment: every protected variable is dropped on the way to the worker. Fix: pass the
variables explicitly (sudo --preserve-env=NAME, env -i NAME="$NAME" …) or avoid the wrapper.`,
	Run: runEnvReset,
}

// env-reset: every wrapper that resets the environment a worker starts in.
func runEnvReset(p *Pass) { reportWrapped(p, wrapper.EnvReset) }

// reportWrapped reports the wrappers of one rule.
func reportWrapped(p *Pass, rule string) {
	for _, w := range p.Wrapped {
		if w.Rule == rule {
			p.Report(w.At, w.Message, w.Variables...)
		}
	}
}
