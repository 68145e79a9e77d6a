package launcher

import "github.com/childproof/childproof/proc"

// Options tune Start.
type Options struct {
	// StateDir is the state directory; "" means DefaultStateDir. State,
	// when set, is used instead.
	StateDir string
	State    *State
	// Detach leaves the tree running when Start returns, in a session of
	// its own and without the parent-death signal; the launch lock is
	// released. Otherwise the caller supervises (Wait, Stop).
	Detach bool
	// Subreaper makes the calling process a child subreaper so that
	// double-forked descendants stay in the tree (the CLI sets it).
	Subreaper bool
	// Set are extra overrides (run --set), applied after the spec's env.
	Set map[string]string
	// LookupEnv answers the caller's environment; nil means os.LookupEnv.
	LookupEnv func(string) (string, bool)
	// Environ lists the caller's environment for inherit patterns; nil
	// means os.Environ.
	Environ func() []string
	// ShowValues puts values into reports (never into records or logs).
	ShowValues bool
	// NoCgroup disables the per-launch cgroup even where it would work.
	NoCgroup bool
	// NoExecCapture launches untraced: no exec-time environment evidence
	// is captured (also CHILDPROOF_NO_EXEC_CAPTURE=1). See execWatch.
	NoExecCapture bool
	// Proc is the /proc reader; the zero value reads /proc.
	Proc proc.FS
	// SpecHash is recorded with the launch (schema.File.Hash).
	SpecHash string
	// Notify, when set, is told what the launch did besides launching
	// (on_stale = "replace" stopped the previous launch), in words.
	Notify func(string)
	// Progress, when set, is called (from Start's goroutine) each time
	// what the launch waits for changes.
	Progress func(Progress)
	// SecretSet names the Set entries whose values are secret
	// (--set-secret): the round history keeps only their digests.
	SecretSet []string
	// Command names the command in the round history ("run"); "" is "start".
	Command string

	// plan is Relaunch's round plan: carried overrides and the delta.
	plan *roundPlan
}
