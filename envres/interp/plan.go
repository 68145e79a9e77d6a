package interp

import (
	"mvdan.cc/sh/v3/syntax"

	"github.com/childproof/childproof/envres/construct"
	"github.com/childproof/childproof/envres/internal/resolve"
	"github.com/childproof/childproof/envres/plan"
)

// What Plan finds is envres/plan's; these are its names in interp. Each
// is plain data, safe for concurrent use while no one changes it, but the
// Planner, which one walk fills.
type (
	Planner       = plan.Planner
	Command       = plan.Command
	How           = plan.How
	Start         = plan.Start
	Note          = plan.Note
	EnvSetting    = plan.EnvSetting
	Word          = plan.Word
	Part          = plan.Part
	ConstructKind = construct.Kind
	Construct     = construct.Construct
)

// The ways a worker starts.
const (
	HowExec       = plan.HowExec
	HowBackground = plan.HowBackground
	HowForeground = plan.HowForeground
)

// Constructs a spec replaces or cannot express.
const (
	ReadinessLoop = construct.ReadinessLoop
	KillCleanup   = construct.KillCleanup
	Conditional   = construct.Conditional
)

// NewPlanner returns a planner for one Analyze: it records where workers
// start (Plan).
func NewPlanner() *Planner { return plan.New() }

// planRec hands the walk's worker starts to a Planner, resolved by
// envres/internal/resolve.
type planRec struct {
	a   *analyzer
	p   *Planner
	res *resolve.Resolver[event, walkCtx]
}

// ran is called for every non-trivial external command run in the
// foreground.
func (r *planRec) ran(ref *cmdRef) {
	c := Command{Pos: ref.site.Pos}
	if len(ref.fs) > 0 && ref.fs[0].Known {
		c.Name = ref.fs[0].Str
	}
	r.p.Ran(c)
}

// assigned is called for every assignment the walk makes.
func (r *planRec) assigned(name string, ns varState, ev *event) { r.res.Assigned(name, ns, ev) }

// worker is called at every worker point with the environment it starts with.
func (r *planRec) worker(st *state, cmd *cmdRef) {
	s := &Start{Pos: cmd.site.Pos, Chain: cmd.site.Chain,
		Nohup: cmd.nohup, Dir: st.Cwd, Reset: st.reset}
	switch cmd.mode {
	case callExec:
		s.How = HowExec
	case callBackground:
		s.How = HowBackground
	default:
		s.How = HowForeground
	}
	ev := r.a.eval(st.fork(), cmd.fc)
	s.Argv = r.res.Argv(ev, cmd.fs)
	r.res.Env(ev, st.Vars.All(), st.pending, s)
	r.p.Add(s)
}

// read hands the planner the scripts the walk parsed, for Constructs.
func (r *planRec) read() {
	for _, pf := range r.a.parsed {
		if pf.file != nil && pf.err == nil {
			r.p.Read(pf.name, pf.src, pf.file)
		}
	}
}

// Origin says what an event did (resolve.Walk).
func (a *analyzer) Origin(ev *event) resolve.Origin {
	o := resolve.Origin{At: ev.site, What: ev.what, InFunc: ev.note != "", Unresolved: ev.unresolved}
	switch ev.kind {
	case evAssign:
		o.Kind = resolve.Assign
	case evLoad:
		o.Kind = resolve.Load
	}
	return o
}

// Fork returns an evaluator like ev on a fork of its state (resolve.Walk).
func (a *analyzer) Fork(ev *evaluator) *evaluator {
	st := ev.Ctx.st.fork()
	return &evaluator{Host: ev.Host, Scope: &st.Scope, Ctx: walkCtx{st, ev.Ctx.fc}}
}

// Syntax returns the syntax of the script findings call name, or nil
// (resolve.Walk).
func (a *analyzer) Syntax(name string) *syntax.File {
	var file *syntax.File
	for _, pf := range a.parsed {
		if pf.name == name && pf.file != nil {
			file = pf.file
		}
	}
	return file
}
