package launcher

import "github.com/childproof/childproof/proc"

// Options tune Start. The zero value starts a foreground launch recorded
// in the default state dir, with the caller's environment, a cgroup where
// one can be made, exec-time capture, and values kept out of reports.
// Fields are grouped by idea; the groups are embedded, so opts.Set reads
// as before, and a literal names the group:
//
//	launcher.Options{StateDir: dir, EnvInput: launcher.EnvInput{Set: map[string]string{"MODE": "fast"}}}
type Options struct {
	// StateDir is the state directory; "" means DefaultStateDir
	// ($CHILDPROOF_STATE_DIR, else $XDG_STATE_HOME/childproof, else
	// ~/.local/state/childproof).
	StateDir string
	// State, when not nil, is the opened state dir, used instead of
	// StateDir.
	State *State
	// Detach leaves the tree running when Start returns, in a session of
	// its own and without the parent-death signal; the launch lock is
	// released. false: the caller supervises (Wait, Stop), and the tree
	// dies with the caller.
	Detach bool
	// ShowValues puts values into reports (never into records or logs);
	// false: reports hold keyed digests only.
	ShowValues bool
	// Proc is the /proc reader; the zero value reads /proc.
	Proc proc.FS
	EnvInput
	Tracking
	Callbacks
	Provenance

	// plan is Relaunch's round plan: carried overrides and the delta.
	plan *roundPlan
}

// EnvInput is where a launch's environment comes from besides its spec.
type EnvInput struct {
	// Set are extra overrides (run --set), applied after the spec's env;
	// nil: none.
	Set map[string]string
	// SecretSet names the Set entries whose values are secret
	// (--set-secret): the round history keeps only their digests. nil:
	// none beyond the spec's secret list.
	SecretSet []string
	// LookupEnv answers the caller's environment (env() and inherit);
	// nil means os.LookupEnv.
	LookupEnv func(string) (string, bool)
	// Environ lists the caller's environment for inherit patterns; nil
	// means os.Environ.
	Environ func() []string
}

// Tracking is how the launched tree is kept together and watched.
type Tracking struct {
	// Subreaper makes the calling process a child subreaper so that
	// double-forked descendants stay in the tree (process-wide; the CLI
	// sets it). false: the caller's reaping is left alone.
	Subreaper bool
	// NoCgroup disables the per-launch cgroup even where it would work;
	// false: a cgroup when running as root on cgroup v2.
	NoCgroup bool
	// NoExecCapture launches untraced: no exec-time environment evidence
	// is captured (also CHILDPROOF_NO_EXEC_CAPTURE=1). false: captured
	// where ptrace is allowed. See execWatch.
	NoExecCapture bool
}

// Callbacks tell the caller what a launch is doing while Start runs.
type Callbacks struct {
	// Notify, when set, is told what the launch did besides launching
	// (on_stale = "replace" stopped the previous launch), in words; nil:
	// nobody is told.
	Notify func(string)
	// Progress, when set, is called (from Start's goroutine) each time
	// what the launch waits for changes; nil: not called.
	Progress func(Progress)
}

// Provenance is what the record and round history say a launch came from.
type Provenance struct {
	// SpecHash is recorded with the launch (schema.File.Hash); "": none.
	SpecHash string
	// Command names the command in the round history ("run"); "" is "start".
	Command string
}
