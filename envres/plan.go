package envres

import (
	"context"

	"github.com/childproof/childproof/envres/interp"
)

// LaunchPlan is what a script would launch, read by the same analysis as
// Lint: every place where a worker may start, with the argv, directory and
// exported environment it starts with there. childproof import turns it
// into a spec. It is plain data, safe for concurrent use while no one
// changes it.
type LaunchPlan struct {
	// Lint is the lint result of the same walk (no protected variables
	// unless the Config names some).
	Lint *Result
	// Starts are the places where a worker may start, in the order the
	// analysis reached them; a place reached twice keeps the last state.
	Starts []*Start
	// Constructs are statements of the scripts read that a spec replaces
	// or cannot express: readiness loops, kill cleanups, conditionals.
	Constructs []Construct
	// Commands are the external commands the scripts run in the
	// foreground and wait for (a migration, a build step), other than
	// trivial ones (echo, mkdir, sleep …), in the order reached.
	Commands []Command
	// Dir is the absolute directory the Config's paths are relative to.
	Dir string
}

// What a LaunchPlan holds is interp's; these are their names in envres.
// Each is plain data, safe for concurrent use while no one changes it.
type (
	// Command is an external command run in the foreground.
	Command = interp.Command
	// How says how a worker starts.
	How = interp.How
	// Start is one place where a worker starts.
	Start = interp.Start
	// Note is a remark at a place in a script.
	Note = interp.Note
	// EnvSetting is an exported variable the scripts set.
	EnvSetting = interp.EnvSetting
	// Word is a word of the worker's argv or an exported value, resolved
	// as far as the analysis goes.
	Word = interp.Word
	// Part is literal text, or the caller's value of a variable.
	Part = interp.Part
	// ConstructKind names a construct of Constructs.
	ConstructKind = interp.ConstructKind
	// Construct is a statement a spec replaces or cannot express.
	Construct = interp.Construct
)

// The ways a worker starts.
const (
	// HowExec is an exec'd command: the script becomes the worker.
	HowExec = interp.HowExec
	// HowBackground is a command started with & (or setsid -f).
	HowBackground = interp.HowBackground
	// HowForeground is the last external command of a script, or a
	// command run with NAME=VALUE before it.
	HowForeground = interp.HowForeground
)

// Constructs a spec replaces or cannot express.
const (
	// ReadinessLoop is a loop polling with curl, wget, nc or sleep.
	ReadinessLoop = interp.ReadinessLoop
	// KillCleanup is pkill, killall, fuser -k or kill $(cat PIDFILE).
	KillCleanup = interp.KillCleanup
	// Conditional is an if or case statement.
	Conditional = interp.Conditional
)

// Plan analyses cfg's scripts as Lint does and returns where workers start.
// Errors are as Lint's.
func Plan(ctx context.Context, cfg Config) (*LaunchPlan, error) {
	p := interp.NewPlanner()
	res, dir, err := analyze(ctx, cfg, p)
	if err != nil {
		return nil, err
	}
	out := &LaunchPlan{Lint: res, Starts: p.Starts(), Commands: p.Commands(), Dir: dir}
	out.Constructs = p.Constructs()
	return out, nil
}
