package launcher

import (
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"

	"github.com/childproof/childproof/proc"
	"github.com/childproof/childproof/verify"
)

// procTree is a launch's processes as something to signal: its process
// group (through the group leader's pidfd), its cgroup, and members held
// through their own pidfds. The supervisor's tree has the launched root as
// a child (root); stop's tree is rebuilt from a record (root nil) and
// reaches the group, the recorded worker and the cgroup's members only.
// It never signals through a bare pid: a member's pidfd is opened first
// and membership re-checked through it.
type procTree struct {
	p      proc.FS
	root   *rootProc // the launched root, nil for a recorded tree
	leader int       // pidfd of the process-group leader, -1 when none
	pgid   int
	cgroup string
	// marker is the launch's MarkerVar value: without a cgroup, the
	// processes carrying it are the tree's (and the process group is not
	// signalled as a whole: a stranger may have joined it).
	marker string
	// scan makes members look for marked processes all over /proc (a
	// launched tree while it is signalled and stopped; finding its worker
	// needs only its descendants).
	scan bool
	// daemons: the launch selects its worker by selector or port, so a
	// process that left the tree (a double-forked daemon) may be it: once
	// the root has exited, members also counts the marked processes.
	daemons bool
	// forked lists the live processes the tracer saw forked in the tree
	// (nil: not traced): a daemon that overwrote its environment block
	// with a process title carries no readable marker.
	forked func() []int
	// marked are the processes found carrying the marker at markedAt
	// (withMarkedCached).
	marked   []int
	markedAt time.Time
	// pinned maps pids to pidfds held since they were fingerprinted
	// (stop: the recorded worker); they are signalled through those.
	pinned map[int]int
	// watched are pidfds of the members seen before the first signal.
	watched []int
	// stopSig is the first signal Terminate sends (the spec's stop
	// signal); zero: SIGTERM.
	stopSig syscall.Signal
	// events hears the tree's forks, execs and exits (nil: not root, or
	// the proc connector refused; treeevents_linux.go).
	events *treeEvents

	mu       sync.Mutex
	finished bool        // signals and reaping are over (Terminate returned)
	stopped  *StopResult // what stopping it did, once finished
}

// rootProc is the process the supervisor exec'd.
type rootProc struct {
	cmd    *exec.Cmd
	fp     verify.Fingerprint
	done   chan struct{} // closed once it is reaped
	status ExitStatus    // how it ended, once done is closed
	// state is its wait status once done is closed.
	state *os.ProcessState
}

// pid is the root's pid; 0 before it started (or when it did not).
func (r *rootProc) pid() int {
	if r == nil || r.cmd == nil || r.cmd.Process == nil {
		return 0
	}
	return r.cmd.Process.Pid
}

func (r *rootProc) exited() bool {
	select {
	case <-r.done:
		return true
	default:
		return false
	}
}
