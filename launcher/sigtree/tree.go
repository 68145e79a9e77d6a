package sigtree

import (
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"

	"github.com/childproof/childproof/proc"
	"github.com/childproof/childproof/verify"
)

// Tree is a launch's processes as something to signal: its process
// group (through the group leader's pidfd), its cgroup, and members held
// through their own pidfds. The supervisor's tree has the launched root as
// a child (Root); stop's tree is rebuilt from a record (Root nil) and
// reaches the group, the recorded worker and the cgroup's members only.
// It never signals through a bare pid: a member's pidfd is opened first
// and membership re-checked through it. It is not safe for concurrent
// use: its caller serialises its calls (a launch under its own lock).
type Tree struct {
	P    proc.FS
	Root *Root // the launched root, nil for a recorded tree
	// Leader is the pidfd of the process-group leader, -1 when none.
	Leader int
	Pgid   int
	Cgroup string
	// Marker is the launch's MarkerVar value: without a cgroup, the
	// processes carrying it are the tree's (and the process group is not
	// signalled as a whole: a stranger may have joined it).
	Marker string
	// scan makes members look for marked processes all over /proc (a
	// launched tree while it is signalled and stopped; finding its worker
	// needs only its descendants).
	scan bool
	// Daemons: the launch selects its worker by selector or port, so a
	// process that left the tree (a double-forked daemon) may be it: once
	// the root has exited, Members also counts the marked processes.
	Daemons bool
	// Forked lists the live processes the tracer saw forked in the tree
	// (nil: not traced): a daemon that overwrote its environment block
	// with a process title carries no readable marker.
	Forked func() []int
	// marked are the processes found carrying the marker at markedAt
	// (withMarkedCached).
	marked   []int
	markedAt time.Time
	// Pinned maps pids to pidfds held since they were fingerprinted
	// (stop: the recorded worker); they are signalled through those.
	Pinned map[int]int
	// watched are the members seen before the first signal, each held
	// through a pidfd.
	watched []watch
	// StopSig is the first signal Terminate sends (the spec's stop
	// signal); zero: SIGTERM.
	StopSig syscall.Signal
	// RootFirst says that the gone Terminate and WaitGone are given
	// cannot hold while the root is unreaped (a launch's own stop waits
	// for its root): until the reap, WaitGone wakes for it, a held
	// member's exit, ctx or its end, not every goneRecheck as well.
	RootFirst bool
	// procs is a launched tree's cgroup.procs, held open once Members
	// first reads it, until ReleaseCgroup (procsReleased).
	procs cgroupProcs
}

// cgroupProcs is a cgroup.procs file held open: fd (when open), the
// buffer it is read into, and the mutex its reads take (each restarts
// the kernel's listing from offset 0).
type cgroupProcs struct {
	mu       sync.Mutex
	fd       int
	open     bool
	released bool
	buf      []byte
}

// watch is a member Terminate holds through pidfd fd: its own, or one
// the tree held already (borrowed: Unwatch leaves it open).
type watch struct {
	pid, fd  int
	borrowed bool
}

// Root is the process the supervisor exec'd. Its fields are set before
// Done is closed and read after: safe for concurrent use in that order.
type Root struct {
	Cmd    *exec.Cmd
	FP     verify.Fingerprint
	Done   chan struct{} // closed once it is reaped
	Status ExitStatus    // how it ended, once Done is closed
	// State is its wait status once Done is closed.
	State *os.ProcessState
}

// Pid is the root's pid; 0 before it started (or when it did not).
func (r *Root) Pid() int {
	if r == nil || r.Cmd == nil || r.Cmd.Process == nil {
		return 0
	}
	return r.Cmd.Process.Pid
}

// Exited reports whether the root has been reaped.
func (r *Root) Exited() bool {
	select {
	case <-r.Done:
		return true
	default:
		return false
	}
}
