package launcher

import (
	"context"
	"io"
	"regexp"
	"time"

	"github.com/childproof/childproof/launcher/statedir"
	"github.com/childproof/childproof/proc"
)

// DefaultStopGrace is the stop grace of a launch whose
// Options.StopGrace is zero: SIGKILL 10 s after SIGTERM, the default of
// 'childproof stop --timeout' too.
const DefaultStopGrace = statedir.DefaultStopGrace

// Options tune Start. The zero value starts a foreground launch recorded
// in the default state dir, with the caller's environment, a cgroup where
// one can be made, exec-time capture, and values kept out of reports.
// Fields are grouped by idea; the groups are embedded, so a field reads
// through Options (opts.Set), and a literal names the group:
//
//	launcher.Options{StateDir: dir, EnvInput: launcher.EnvInput{Set: map[string]string{"MODE": "fast"}}}
//
// The tree inherits the signals the caller ignores (see Start).
//
// An Options is plain data, safe for concurrent use while no one changes
// it. Launches started with one Options call its functions and writers
// from their own goroutines, so those must then be safe for concurrent use.
type Options struct {
	// StateDir is the state directory; "" means statedir.DefaultDir
	// ($CHILDPROOF_STATE_DIR, else inside a SLURM job step a directory of
	// the job step's own, else $XDG_STATE_HOME/childproof, else
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
	// Relay is the program a detached launch's log relay runs as (the
	// process that masks the tree's output into the log once Start has
	// returned): a binary whose main calls RelayMain first, as the
	// childproof command's does. "": this program's own binary when it
	// called RelayMain, else childproof on $PATH; with neither a detached
	// Start fails before anything starts (outcome.Usage). Importing launcher
	// never re-runs the caller's binary unasked. A foreground launch
	// needs no relay (its output is read by a goroutine of the caller).
	Relay string
	// ShowValues puts values into reports (never into records or logs);
	// false: reports hold keyed digests only.
	ShowValues bool
	// Proc is the /proc reader; the zero value reads /proc.
	Proc proc.FS
	// FromSpec says the launch is a spec file's as the childproof command
	// loads it: {{port}} placeholders are left as they are (the spec
	// language has port()), and a nil Inherit passes exactly
	// spec.DefaultInherit. false (a launch built in Go): placeholders
	// are filled from Ports, and a nil Inherit also passes GOCOVERDIR
	// (coverage of a `go build -cover` server). Errors are the same
	// either way: a caller words hints from Error.Fix and its fields.
	FromSpec bool
	// Output, when set, gets every line the tree prints (stdout and
	// stderr), secrets masked: the bytes the log gets, whole lines each
	// with its newline, one or more lines per Write (a line not ended when
	// the launch ends gets one; a line over 1 MiB comes in pieces), from a
	// goroutine of the launch; nil: the
	// output goes to the log only. In the foreground it is fed by the
	// reader of the tree's pipe as it writes the log (a slow Output slows
	// the tree, as a slow terminal would); a detached launch's is read
	// from the log. It is written until Stop or Wait returns (a detached
	// launch: until Start returns), and not after.
	Output io.Writer
	// Stdout and Stderr, when set, get the lines the tree writes to its
	// standard output and its standard error, each stream apart, secrets
	// masked, as Output gets them (whole lines, from a goroutine of the
	// launch, until Stop or Wait returns); Output and the log still get
	// both. Setting either gives the tree two pipes instead of one: the
	// log then holds whole lines of each stream in the order childproof
	// read them, and a line written to stdout just before one written to
	// stderr may come after it (as with docker logs). Nil (both, the
	// default): one pipe, the log in the tree's own order. A foreground
	// launch only: with Detach, Start refuses them (a detached launch's
	// output is read back from its log, which does not say the stream).
	// Lines is a writer that keeps the lines and waits for them.
	Stdout, Stderr io.Writer
	// Ready adds checks to the spec's readiness (Launch.Ready); each
	// counts only once the verified worker owns its declared ports, and
	// all must pass within the spec's Ready.Timeout. The zero value adds
	// none.
	Ready Readiness
	// StopGrace bounds how long a stop of the launch waits, after
	// SIGTERM, for the tree to exit before it SIGKILLs what is left (as
	// exec.Cmd.WaitDelay bounds the wait after Cancel): Stop's, when its
	// context has no deadline, and Relaunch's of the previous launch.
	// Zero: DefaultStopGrace.
	StopGrace time.Duration
	EnvInput
	Tracking
	Callbacks
	Provenance
}

// EnvInput is where a launch's environment comes from besides its spec.
// It is plain data, safe for concurrent use while no one changes it.
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

// Tracking is how the launched tree is kept together and watched. It is
// plain data, safe for concurrent use while no one changes it.
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
	// where ptrace is allowed. See exectrace.Tracer.
	NoExecCapture bool
}

// Callbacks tell the caller what a launch is doing. Start calls Progress,
// and Notify is called by Start and again while Wait watches the tree. It
// is plain data, safe for concurrent use while no one changes it.
type Callbacks struct {
	// Notify, when set, is told what the launch did besides launching
	// (a worker that diverged after it was verified), in words; nil:
	// nobody is told.
	Notify func(string)
	// Replaced, when set, is told that OnStale stopped the previous
	// launch; nil: Notify is told, in Go's words (Replaced.Say(GoReplace)).
	Replaced func(*Replaced)
	// Progress, when set, is called (from Start's goroutine) each time
	// what the launch waits for changes; nil: not called.
	Progress func(Progress)
}

// replaced is who is told that OnStale stopped the previous launch: the
// caller's Replaced, else its Notify; nil: nobody.
func (c Callbacks) replaced() func(*Replaced) {
	switch {
	case c.Replaced != nil:
		return c.Replaced
	case c.Notify != nil:
		return func(r *Replaced) { c.Notify(r.Say(GoReplace)) }
	}
	return nil
}

// Provenance is what the record and round history say a launch came from.
// It is plain data, safe for concurrent use while no one changes it.
type Provenance struct {
	// SpecHash is recorded with the launch (schema.File.Hash); "": none.
	SpecHash string
	// Command names the command in the round history (CommandRun); ""
	// is CommandStart (Relaunch: CommandRelaunch). CommandRestart marks a
	// restart by the restart policy.
	Command Command
	// Vars are the spec variables the caller set (--var K=V), as
	// "K=V": the record keeps them (a value that is a secret of the
	// launch by its digest only), and relaunch reuses them.
	Vars []string
	// ArgvMayChange lets a relaunch start argv other than the recorded
	// launch's (the caller changed a variable with --var); without it
	// such a relaunch is refused before anything is stopped.
	ArgvMayChange bool
}

// Readiness is readiness a Go caller adds to a launch's spec. Checks run
// in this order, after the spec's (a TCP connect to each port, or the GET
// of Ready.HTTP, whose answer Status and Body then judge). It is plain
// data, safe for concurrent use while no one changes it.
type Readiness struct {
	// Status says whether the status code of the answer to the spec's
	// Ready.HTTP GET means ready; nil: 2xx. Needs Ready.HTTP.
	Status func(code int) bool
	// Body must match the body of that answer (its first 64 KiB); nil:
	// any body. Needs Ready.HTTP.
	Body *regexp.Regexp
	// Log must match a line the tree printed (since it started, secrets
	// masked); nil: no wait for a line.
	Log *regexp.Regexp
	// LogCount is how many lines must match Log (a server that says
	// "ready" once per listener, a worker pool that logs each worker):
	// the wait ends at the LogCount-th. Zero or one: the first.
	LogCount int
	// Func is called, when the tree printed a line and otherwise every
	// 50 ms (less often after 10 s; at most 20 calls a second), until it
	// returns nil; its last error is in the not-ready message. Its ctx ends at
	// the readiness deadline. nil: not called.
	Func func(ctx context.Context) error
}
