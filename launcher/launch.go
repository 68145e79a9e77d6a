package launcher

import (
	"sync"

	"github.com/childproof/childproof/internal/wakeup"
	"github.com/childproof/childproof/launcher/exectrace"
	"github.com/childproof/childproof/launcher/memberwatch"
	"github.com/childproof/childproof/launcher/output"
	"github.com/childproof/childproof/launcher/relay"
	"github.com/childproof/childproof/launcher/sigtree"
	"github.com/childproof/childproof/launcher/statedir"
	"github.com/childproof/childproof/launcher/treeevents"
	"github.com/childproof/childproof/launcher/watchdog"
	"github.com/childproof/childproof/spec"
	"github.com/childproof/childproof/verify"
)

// Launch is a started and verified tree. Its methods are safe for
// concurrent use (Wait in one goroutine while another calls Stop or
// Verify); its exported fields must not be changed. Wait, Stop and
// NoteRestart change the Record it points at, so read Record while none
// of them runs.
type Launch struct {
	// Spec is the launch spec it was started from.
	Spec *spec.Launch
	// Report is the verification report of the start.
	Report *verify.Report
	// Record is what was written to the state dir.
	Record *Record
	// Env is the resolved environment (values: never print them).
	Env *Env
	// State is the state dir.
	State *State

	opts Options
	lock *statedir.LaunchLock
	// workDir is the working directory its start's check decided
	// (launchDir; "": ask launchDir).
	workDir string
	// tree is the launched processes (nil until the exec).
	tree *sigtree.Tree
	// events hears the tree's forks, execs and exits (nil: not root, or
	// the proc connector refused; treeevents_linux.go).
	events *treeevents.Events

	// mu guards the worker, the tree's signals and reaping, and what
	// stopping it did.
	mu       sync.Mutex
	finished bool        // signals and reaping are over (terminate returned)
	stopped  *StopResult // what stopping it did, once finished
	// worker is the worker once found (its fingerprint) and its pidfd
	// once verified (else -1).
	worker workerRef
	// exec is the exec-time environment evidence (package exectrace).
	exec  execEvidence
	notes launchNotes
	// out gives the output to Options.Output and Ready.Log (nil: not
	// followed).
	out      *output.Follower
	stopOnce sync.Once
	// pipe is the tree's output pipe and its masking reader.
	pipe *relay.Pipe
	// testState is set when the launch holds a reference to the test
	// binary's state dir (testStateDir), given back by finish.
	testState bool
	// watchdog ends a foreground tree whose starter is gone (nil:
	// detached, or none could be started).
	watchdog *watchdog.Watchdog
	// ranks are the workers of a multi-process job (worker { count = N
	// }), worker's first, once all N are there (ranks_linux.go).
	ranks []rank
}

// workerRef is a launch's worker: its fingerprint, and its pidfd.
type workerRef struct {
	verify.Fingerprint
	fd int
}

// execEvidence is what tracing the launch's execs gave.
type execEvidence struct {
	// watch captures exec-time env evidence while the launch is in
	// progress (nil: not traced).
	watch *exectrace.Tracer
	// env is the worker's exec-time evidence, once verified on it.
	env *verify.ExecEnv
}

// launchNotes is what a launch has told the state dir and its caller.
type launchNotes struct {
	// pending is set while the provisional record stands in the state dir
	// (once pendingWrite, the write under way, says it was written).
	pending      bool
	pendingWrite chan bool
	// lastProgress is what Options.Progress was told last.
	lastProgress Progress
	// round is the launch's round in the state dir's history (nil when
	// it could not be written); endNoted is set once its end is recorded.
	round    *Round
	endNoted bool
	// picked is the tree's signature (proctree.Signature) when the worker was
	// picked: a tree that changed by the time the worker is judged is
	// looked at again (stable_linux.go).
	picked string
	// settled is the signature of the tree when it was last found quiet
	// for preforkQuiet.
	settled string
	// wake is rung by the output follower on every line, for the
	// readiness waits (nil: no wait needs it).
	wake *wakeup.Wakeup
	// findWake gets a value on every line while the find loop looks for
	// the worker's listener (nil: the spec declares no port).
	findWake chan struct{}
	// watch is foreground supervision's view of the tree's members
	// (watch_linux.go, package memberwatch).
	watch memberwatch.Watch
}

// Pid returns the worker's pid (foreground supervision follows a
// respawned worker: see Wait).
func (la *Launch) Pid() int { return la.Worker().Pid }

// Worker returns the worker's fingerprint.
func (la *Launch) Worker() verify.Fingerprint {
	if la.tree == nil {
		return la.worker.Fingerprint
	}
	la.mu.Lock()
	defer la.mu.Unlock()
	return la.worker.Fingerprint
}

// Root returns the launch root's fingerprint.
func (la *Launch) Root() verify.Fingerprint { return la.tree.Root.FP }

// LogPath returns the path of the tree's log.
func (la *Launch) LogPath() string { return la.State.LogPath(la.Spec.Name) }

// Done is closed when the launched root process has exited and been reaped.
func (la *Launch) Done() <-chan struct{} { return la.tree.Root.Done }

// ExitCode returns the root's exit code once Done is closed.
func (la *Launch) ExitCode() int { return la.tree.Root.Status.ExitCode() }
