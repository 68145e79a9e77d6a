package envres

// AssignClobber is a rule of the contract's table.
var AssignClobber = &Rule{
	Name: "assign-clobber", Severity: SeverityError,
	Short: "the script assigns an exported protected variable a different value",
	Doc: `The script itself assigns a protected (overridden) variable that is exported a different
value — or a value that may differ — before the worker runs. Fix: drop the assignment, or guard it
with : "${NAME:=default}" so that it only fills an unset name.`,
	Run: runAssignClobber,
}

// assign-clobber: every assignment by the script that changes a protected
// variable.
func runAssignClobber(p *Pass) {
	for _, c := range p.Changes {
		if c.Kind != ChangeAssign {
			continue
		}
		msg := "the script assigns exported protected variable " + c.Var + " " + c.Value + " before the worker: the override is lost"
		if c.Later {
			msg = "the script assigns exported protected variable " + c.Var + " " + c.Value + "; a later statement changes it again"
		}
		p.Report(c.At, msg+c.In+noWorker(c.NoWorker), c.Var)
	}
}
