package exectrace

import (
	"os/exec"
	"runtime"
	"slices"
	"sync"
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
// idleTimeout at most; a thread beyond those and one with a child left
// end as before, by returning while locked. The process's main thread
// (where orphans are re-parented when childproof is a subreaper) and a
// thread with a child trace no start (traceThread). A root's parent-death signal is tied to the thread that forked it: a
// thread never waits for a start while its root runs, so that stays as
// before.

const (
	// maxIdle caps the tracer threads that wait for a start.
	maxIdle = 4
	// idleTimeout is how long a tracer thread waits for a start before
	// it ends: as long as the watchdog lingers, for the same reason (a
	// test suite's launches come one after another).
	idleTimeout = 2 * time.Second
)

// job is one traced start handed to a tracer thread.
type job struct {
	w          *Tracer
	cmd        *exec.Cmd
	afterTrace func()
	rootDone   <-chan struct{}
	errc       chan error
}

// idle lists the tracer threads that wait for a start.
var idle struct {
	mu      sync.Mutex
	threads []idleThread
}

// idleThread is a tracer thread waiting for a start: its tid, and the
// channel it waits on (capacity 1: a start taken off the list is handed
// over without waiting).
type idleThread struct {
	tid  int
	next chan *job
	// gone is closed once the thread's goroutine has returned.
	gone chan struct{}
}

// IdleThreads counts the tracer threads that wait for a start (at most
// maxIdle): a test that counts goroutines to find a leak leaves them out.
func IdleThreads() int {
	idle.mu.Lock()
	defer idle.mu.Unlock()
	return len(idle.threads)
}

// startTraced runs j on a waiting tracer thread (the last to wait), or on
// a new one, and returns cmd.Start's error.
func startTraced(j *job) error {
	var next chan *job
	idle.mu.Lock()
	if n := len(idle.threads); n > 0 {
		next = idle.threads[n-1].next
		idle.threads = idle.threads[:n-1]
	}
	idle.mu.Unlock()
	if next != nil {
		next <- j
	} else {
		go traceThread(j, nil)
	}
	return <-j.errc
}

// traceThread runs j, then the starts handed to it while it waits, on a
// goroutine locked to its thread for good; locked (nil: none) is closed
// once it is locked.
//
// Never on the process's main thread, nor on a thread that has a child
// already (one that forked the watchdog, or a detached launch's relay):
// neither ever waits for a next start (nextJob). A goroutine that
// returns locked to the main thread does not end it but parks it for the
// rest of the process, and a thread with a child ends after its start:
// either way the next start makes a new tracer thread (~0.3 ms of CPU on
// a VM), and a parked main thread costs the process another. A fresh
// test process's main thread is idle and often took its first start, and
// the thread that forked the watchdog often took the start that made it.
// There, j goes to another goroutine, which cannot run on this thread
// while this one holds it; the thread goes back to the runtime once that
// one is locked to its own.
func traceThread(j *job, locked chan<- struct{}) {
	runtime.LockOSThread()
	if locked != nil {
		close(locked)
	}
	tid := unix.Gettid()
	if tid == unix.Getpid() || !childless() {
		handed := make(chan struct{})
		go traceThread(j, handed)
		<-handed
		runtime.UnlockOSThread()
		return
	}
	t := idleThread{tid: tid, next: make(chan *job, 1), gone: make(chan struct{})}
	defer close(t.gone)
	var timer *time.Timer
	for j != nil {
		runTraced(j, tid)
		j = nextJob(t, &timer)
	}
	// Returning while locked ends the thread.
}

// LetIdleGo ends the tracer threads that wait for a start at once,
// rather than after idleTimeout, and waits (up to timeout) until their
// goroutines have returned; it reports whether they all have.
func LetIdleGo(timeout time.Duration) bool {
	idle.mu.Lock()
	threads := idle.threads
	idle.threads = nil
	idle.mu.Unlock()
	for _, t := range threads {
		t.next <- nil
	}
	end := time.NewTimer(timeout)
	defer end.Stop()
	for _, t := range threads {
		select {
		case <-t.gone:
		case <-end.C:
			return false
		}
	}
	return true
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
func nextJob(t idleThread, timer **time.Timer) *job {
	tid, next := t.tid, t.next
	if tid == unix.Getpid() || !childless() {
		return nil
	}
	idle.mu.Lock()
	if len(idle.threads) >= maxIdle {
		idle.mu.Unlock()
		return nil
	}
	idle.threads = append(idle.threads, t)
	idle.mu.Unlock()
	if *timer == nil {
		*timer = time.NewTimer(idleTimeout)
	} else {
		(*timer).Reset(idleTimeout)
	}
	select {
	case j := <-next:
		(*timer).Stop()
		return j
	case <-(*timer).C:
	}
	idle.mu.Lock()
	i := slices.Index(idle.threads, t)
	if i >= 0 {
		idle.threads = slices.Delete(idle.threads, i, i+1)
	}
	idle.mu.Unlock()
	if i < 0 {
		// Taken off the list as the time ran out: its start is on its way.
		return <-next
	}
	return nil
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
