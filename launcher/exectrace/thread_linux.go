package exectrace

import (
	"os/exec"
	"runtime"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// A tracer thread is a goroutine locked to its OS thread for good: it
// forks a launch's root, traces the tree, and once the root is reaped it
// waits for the next traced start instead of ending the thread (a thread
// made and ended costs about 100 µs of CPU a start). It only ever runs
// its own goroutine (it stays locked), and it waits for a start only when
// it has no child and no tracee left (waitid says ECHILD), so a tracer
// thread still has no child but its own root and no launch inherits a
// thread that has one. At most maxIdle threads wait, each for
// idleTimeout at most; a thread beyond those, one with a child left, and
// the process's main thread (where orphans are re-parented when
// childproof is a subreaper) end as before, by returning while locked. A
// root's parent-death signal is tied to the thread that forked it: a
// thread never waits for a start while its root runs, so that stays as
// before.

const (
	// maxIdle caps the tracer threads that wait for a start.
	maxIdle = 4
	// idleTimeout is how long a tracer thread waits for a start before
	// it ends.
	idleTimeout = 10 * time.Second
)

// job is one traced start handed to a tracer thread.
type job struct {
	w          *Tracer
	cmd        *exec.Cmd
	afterTrace func()
	rootDone   <-chan struct{}
	errc       chan error
}

var (
	// jobs hands a start to a waiting tracer thread (unbuffered: a send
	// succeeds only when one waits).
	jobs = make(chan *job)
	// idleThreads counts the tracer threads that wait on jobs.
	idleThreads atomic.Int32
)

// IdleThreads counts the tracer threads that wait for a start (at most
// maxIdle): a test that counts goroutines to find a leak leaves them out.
func IdleThreads() int { return int(idleThreads.Load()) }

// startTraced runs j on a waiting tracer thread, or on a new one, and
// returns cmd.Start's error.
func startTraced(j *job) error {
	select {
	case jobs <- j:
	default:
		go traceThread(j)
	}
	return <-j.errc
}

// traceThread runs j, then the starts handed to it while it waits, on a
// goroutine locked to its thread for good.
func traceThread(j *job) {
	runtime.LockOSThread()
	tid := unix.Gettid()
	var idle *time.Timer
	for j != nil {
		runTraced(j, tid)
		j = nextJob(tid, &idle)
	}
	// Returning while locked ends the thread.
}

// runTraced forks j's root traced from the calling thread (tid), traces
// the tree until nothing is traced, and returns once the root is reaped.
func runTraced(j *job, tid int) {
	w, cmd := j.w, j.cmd
	w.tracer = tid
	cmd.SysProcAttr.Ptrace = true
	if w.clearDeath {
		cmd.SysProcAttr.Pdeathsig = syscall.SIGKILL
	}
	w.start = time.Now()
	err := cmd.Start()
	cmd.SysProcAttr.Ptrace = false
	if w.clearDeath {
		cmd.SysProcAttr.Pdeathsig = 0
	}
	j.errc <- err
	if err != nil {
		close(w.done)
		return
	}
	w.root = cmd.Process.Pid
	w.run()
	close(w.done)
	j.afterTrace()
	<-j.rootDone
}

// nextJob waits for the next start, or returns nil when the thread is to
// end: it is the main thread, it has a child or a tracee left, maxIdle
// threads wait already, or none came within idleTimeout.
func nextJob(tid int, idle **time.Timer) *job {
	if tid == unix.Getpid() || !childless() {
		return nil
	}
	if idleThreads.Add(1) > maxIdle {
		idleThreads.Add(-1)
		return nil
	}
	defer idleThreads.Add(-1)
	if *idle == nil {
		*idle = time.NewTimer(idleTimeout)
	} else {
		(*idle).Reset(idleTimeout)
	}
	select {
	case j := <-jobs:
		(*idle).Stop()
		return j
	case <-(*idle).C:
		return nil
	}
}

// childless reports whether the calling thread has no child and no
// tracee: waitid finds nothing to wait for.
func childless() bool {
	var info unix.Siginfo
	for {
		err := unix.Waitid(unix.P_ALL, 0, &info, unix.WEXITED|unix.WSTOPPED|unix.WNOHANG|unix.WNOWAIT|waitAll|waitNoThread, nil)
		if err != unix.EINTR {
			return err == unix.ECHILD
		}
	}
}
