package envres

// AllInterfaces is a rule of the contract's table.
var AllInterfaces = &Rule{
	Name: "all-interfaces", Severity: SeverityWarning,
	Short: "the worker binds all interfaces",
	Doc: `The worker's arguments bind 0.0.0.0, :: or [::] (--bind 0.0.0.0:$PORT, --host=::, or as the
default of an expansion the caller may leave unset: --bind "${HOST:-0.0.0.0}:8000"): the port is
reachable from every network the machine is on. Fix: bind 127.0.0.1 (or the one address that must serve).`,
	Run: runAllInterfaces,
}

// all-interfaces: every argument of a worker that binds all interfaces.
func runAllInterfaces(p *Pass) {
	for _, b := range p.Binds {
		if b.Default != "" {
			p.Report(b.At, "the worker binds all interfaces (0.0.0.0 or ::) by default, unless the caller sets "+b.Default+": the port is reachable from every network; bind 127.0.0.1")
			continue
		}
		p.Report(b.At, "the worker binds all interfaces (0.0.0.0 or ::): the port is reachable from every network; bind 127.0.0.1")
	}
}
