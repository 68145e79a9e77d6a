package envres

import "github.com/childproof/childproof/internal/wrapper"

// LoginShell is a rule of the contract's table.
var LoginShell = &Rule{
	Name: wrapper.LoginShell, Severity: SeverityError,
	Short: "a login shell runs profile files before the worker",
	Doc: `bash -l/--login, sh -l, su -/-l/--login, sudo -i, runuser -l and exec -l start a login shell,
which runs /etc/profile and ~/.profile (or ~/.bash_profile): those files may export, reset or
source anything, including an env file. Fix: run the command directly, or bash --noprofile --norc.`,
	Run: runLoginShell,
}

// login-shell: every login shell a worker starts under.
func runLoginShell(p *Pass) { reportWrapped(p, wrapper.LoginShell) }
