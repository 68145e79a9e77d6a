package envres

// Pidfile is a rule of the contract's table.
var Pidfile = &Rule{
	Name: "pidfile", Severity: SeverityWarning,
	Short: "$! is written to a pidfile",
	Doc: `$! is written to a file. A pid is a bare number that the kernel reuses: a later kill $(cat
pidfile) may signal an unrelated process. Fix: let a supervisor that holds a pidfd or a cgroup own
the process (childproof run / stop).`,
	Run: runPidfile,
}

// pidfile: every place $! (or a variable holding it) is written to a file.
func runPidfile(p *Pass) {
	for _, at := range p.Pidfiles {
		p.Report(at, "$! is written to a file: a pid is a bare number the kernel reuses, so a later kill may hit an unrelated process")
	}
}
