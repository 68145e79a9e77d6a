package envres

import "github.com/childproof/childproof/internal/wrapper"

// InteractiveShell is a rule of the contract's table.
var InteractiveShell = &Rule{
	Name: wrapper.InteractiveShell, Severity: SeverityError,
	Short: "an interactive shell runs rc files before the worker",
	Doc: `bash -i (and -ic, -lic) or sh -i starts an interactive shell, which runs ~/.bashrc (or $ENV):
anything it exports wins over the launcher's overrides. Fix: drop -i; use bash --norc -c.`,
	Run: runInteractiveShell,
}

// interactive-shell: every interactive shell a worker starts under.
func runInteractiveShell(p *Pass) { reportWrapped(p, wrapper.InteractiveShell) }
