package exectrace

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/childproof/childproof/proc"
	"github.com/childproof/childproof/verify"
	"golang.org/x/sys/unix"
)

// Tracer captures exec-time environment evidence while a launch is in
// progress. The launched root is started traced (PTRACE_TRACEME: it stops
// right after its execve, before its first instruction), and with
// PTRACE_O_TRACEEXEC|TRACEFORK|TRACEVFORK every process of the tree (not
// its threads: see ptraceOptions) is traced from birth and stops at each
// execve. At
// each exec stop the tracee's /proc/PID/environ is read: that is the block
// the kernel copied at that execve, before the new program ran a single
// instruction — and so before a setproctitle can write a process title
// over it. Once the worker is verified the tracer detaches from every
// tracee; nothing stays traced.
//
// A process can have one tracer at a time, and a setuid program exec'd
// under a tracer without CAP_SYS_PTRACE runs without its privileges: set
// CHILDPROOF_NO_EXEC_CAPTURE=1 (launcher.Options.NoExecCapture) to launch
// untraced; the worker's live environ is then the only evidence.
//
// Its methods are safe for concurrent use, and on a nil *Tracer (no
// capture: they find nothing).
type Tracer struct {
	root int

	env captures

	// mu guards ts, ending, tracing, rootExited and polling (the tracer
	// loop and Detach, which stops every tracee).
	mu sync.Mutex
	// tracing is set while the tracer loop runs, after the root's first
	// stop.
	tracing bool

	end latch // closed: detach from everything
	// detached is closed once nothing is traced (the tracer loop may
	// still wait for the untraced root's exit).
	detached latch
	done     chan struct{} // closed once nothing is traced any more
	// rootExited is set when the tracer saw the root exit (its status is
	// left for exec.Cmd.Wait: peeked with WNOWAIT, never consumed).
	rootExited bool
	// ts are the traced threads (under mu); ending is set once detaching.
	ts     map[int]*tracee
	ending bool
	// gone are tracees whose exit was consumed before their parent's
	// fork event was (under mu): that event must not add them back as
	// fresh tracees that will never report, which the detach would wait
	// for until its timeout.
	gone map[int]bool
	// tracer is the tracer thread's tid (TracerPid of each tracee).
	tracer int
	// polling: waitAny saw a child of the tracer thread that is not ours;
	// from then on each tracee is polled by its own pid.
	polling bool
	// start is when the root was started; signals are the signals seen
	// on their way to a tracee (under mu), at most maxSignals.
	start   time.Time
	signals []verify.Signal
	// clearDeath: the root was started with a parent-death signal that
	// its first stop clears (a detached launch; see Start).
	clearDeath bool
	// fault is why the root was ended at its first stop (its
	// parent-death signal could not be cleared), or nil (under mu).
	fault error
}

// maxSignals caps the signals a watch records.
const maxSignals = 32

// captures are the environments the tracer captured, by pid (thread-group
// id): each process's last exec.
type captures struct {
	mu    sync.Mutex
	byPid map[int]Capture
	// forked is, for a process forked while traced that has not exec'd
	// since, the evidence of the image it was forked from (its parent's
	// exec, or what its parent inherited) as it was at the fork.
	forked map[int]Capture
	// starts are the start times (clock ticks since boot) of the
	// processes forked while traced, by pid: a pid reused since is not
	// theirs.
	starts map[int]uint64
}

// forkedPids lists the processes forked while traced that still run as
// the process that was forked (not a reuse of the pid) and still run the
// image they were forked with: a daemon that never exec'd (its title may
// hide the marker). One that exec'd since carries an environment of its
// own, and a marker it lacks is its own doing (env -i setsid …: it left
// the launch).
func (c *captures) forkedPids(p proc.FS) []int {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []int
	for pid, start := range c.starts {
		if _, exec := c.byPid[pid]; exec {
			continue
		}
		e, ok := c.forked[pid]
		if !ok {
			continue
		}
		if s, err := p.Stat(pid); err == nil && s.StartTime == start && s.State != 'Z' && sameImageStat(p, pid, s, e) {
			out = append(out, pid)
		}
	}
	return out
}

// fork notes that parent forked child: child carries parent's image.
func (c *captures) fork(parent, child int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.forked == nil {
		c.forked, c.starts = map[int]Capture{}, map[int]uint64{}
	}
	var fs proc.FS
	if st, err := fs.Stat(child); err == nil {
		c.starts[child] = st.StartTime
	}
	if e, ok := c.byPid[parent]; ok {
		c.forked[child] = e
	} else if e, ok := c.forked[parent]; ok {
		c.forked[child] = e
	}
}

// inherited returns the evidence of the image pid was forked from, when
// pid has not exec'd since it was forked while traced.
func (c *captures) inherited(pid int) (Capture, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.byPid[pid]; ok {
		return Capture{}, false
	}
	e, ok := c.forked[pid]
	return e, ok
}

func (c *captures) get(pid int) (Capture, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.byPid[pid]
	return e, ok
}

func (c *captures) set(pid int, e Capture) {
	c.mu.Lock()
	c.byPid[pid] = e
	c.mu.Unlock()
}

// latch is a channel closed once, by whichever caller comes first.
type latch struct {
	once sync.Once
	c    chan struct{}
}

func newLatch() latch { return latch{c: make(chan struct{})} }

func (l *latch) close() { l.once.Do(func() { close(l.c) }) }

// Capture is one process's environment as the kernel set it at its exec:
// plain data, safe for concurrent use once made.
type Capture struct {
	Vars []proc.Var
	// Exe is /proc/PID/exe at the exec stop: the program that was exec'd.
	Exe string
	// Comm is its comm then: the exec'd file's name (a script's own name),
	// before any rename (setproctitle sets comm too).
	Comm string
	// Area is where that exec put its environment block (verify.ExecArea).
	Area string
}

// Start starts cmd traced, on a goroutine locked to its OS thread:
// ptrace requests must come from the tracer thread, and the parent-death
// signal is tied to the thread that forked. afterTrace runs once nothing
// is traced any more (exec.Cmd.Wait must not run while the root is
// traced: a wait for it would also see its ptrace stops); it must arrange
// for rootDone to be closed once the root is reaped. The thread then stays
// with the root until rootDone: it is never handed back to the runtime's
// pool, so a tracer thread has no child but its own root, and no later
// launch inherits a thread that has one. It then waits for the next
// traced start, or ends (see thread_linux.go).
//
// The start window. The root asks to be traced (PTRACE_TRACEME) in the
// child, right before its execve; the tracer is whoever its parent is at
// that moment. A childproof SIGKILLed between the fork and that request
// (its thread waits for the exec, killably) leaves the child to be
// re-parented — to init or a subreaper, which then becomes its tracer
// without knowing it: the program would stop after its execve, in a
// ptrace stop ('t'), for ever. So the root is started with a
// parent-death signal (SIGKILL; Go's child checks that its parent is
// still the one that forked it right after setting it): it dies with the
// thread that forked it at any moment of that window. A foreground
// launch keeps that signal (the tree ends with its supervisor); for a
// detached one (detached is set) the tracer clears it at the root's
// first stop, before its first instruction (clearDeathSignal), and sets
// PTRACE_O_EXITKILL, which covers the rest of the start. Where the
// signal cannot be cleared (CanClearDeathSignal false: not amd64) a
// detached root starts without it and that window stays open.
func Start(cmd *exec.Cmd, detached bool, afterTrace func(), rootDone <-chan struct{}) (*Tracer, error) {
	j := newJob(cmd, detached, afterTrace, rootDone)
	return j.w, startTraced(j)
}

// newJob is Start's traced start, not started yet.
func newJob(cmd *exec.Cmd, detached bool, afterTrace func(), rootDone <-chan struct{}) *job {
	w := &Tracer{env: captures{byPid: map[int]Capture{}}, end: newLatch(), done: make(chan struct{}), detached: newLatch(), ts: map[int]*tracee{}, gone: map[int]bool{}}
	w.clearDeath = detached && CanClearDeathSignal && cmd.SysProcAttr.Pdeathsig == 0
	return &job{w: w, cmd: cmd, afterTrace: afterTrace, rootDone: rootDone, errc: make(chan error, 1)}
}

// Captured returns a copy of every capture the tracer made, by pid (each
// pid's last exec).
func (w *Tracer) Captured() map[int]Capture {
	out := map[int]Capture{}
	if w == nil {
		return out
	}
	w.env.mu.Lock()
	defer w.env.mu.Unlock()
	for pid, e := range w.env.byPid {
		out[pid] = e
	}
	return out
}

// Evidence returns what the tracer captured at pid's last exec.
func (w *Tracer) Evidence(pid int) (Capture, bool) {
	if w == nil {
		return Capture{}, false
	}
	return w.env.get(pid)
}

// Inherited returns the evidence of the exec pid was forked from (a
// daemon forked out of the launched process), when pid has not exec'd.
func (w *Tracer) Inherited(pid int) (Capture, bool) {
	if w == nil {
		return Capture{}, false
	}
	return w.env.inherited(pid)
}

// ForkedPids lists the live processes the tracer saw forked in the tree.
func (w *Tracer) ForkedPids(p proc.FS) []int {
	if w == nil {
		return nil
	}
	return w.env.forkedPids(p)
}

// Detach asks the tracer to let go of every tracee and waits (up to 5 s)
// until it has: a tracee left with our SIGSTOP pending would stop for
// good once untraced.
func (w *Tracer) Detach() {
	if w == nil {
		return
	}
	w.end.close()
	w.mu.Lock()
	w.stopForDetach()
	w.mu.Unlock()
	// Until everything is let go of, drop every entry that is no longer
	// a tracee of ours (gone, or never there) every sweepEvery: the
	// tracer loop only hears from real tracees, so such an entry would
	// hold the detach until its timeout.
	deadline := time.Now().Add(DetachTimeout)
	t := time.NewTimer(sweepEvery)
	defer t.Stop()
	for {
		select {
		case <-w.done:
			return
		case <-w.detached.c:
			return
		case <-t.C:
		}
		left := time.Until(deadline)
		if left <= 0 {
			detachTimeouts.Add(1)
			return
		}
		w.mu.Lock()
		if w.tracing {
			w.sweep()
			w.noteDetached()
		}
		w.mu.Unlock()
		t.Reset(min(sweepEvery, left))
	}
}

// sweepEvery is how often Detach drops the entries that are no longer
// tracees of ours while it waits.
const sweepEvery = 20 * time.Millisecond

// stopForDetach asks every tracee to stop so it can be detached, once
// the tracer loop runs and Detach was called (call with mu held; both
// Detach and the loop's start call it, so whichever comes last does it).
func (w *Tracer) stopForDetach() {
	select {
	case <-w.end.c:
	default:
		return
	}
	if !w.tracing {
		return
	}
	w.ending = true
	w.stopAll(w.ts)
	w.noteDetached()
}

// DetachTimeout bounds Detach's wait for the tracer; detachTimeouts counts
// the waits that reached it (a tracee the tracer lost track of), which
// tests assert never happens.
const DetachTimeout = 5 * time.Second

var detachTimeouts atomic.Int64

// DetachTimeouts counts the Detach calls of this process that waited out
// DetachTimeout (a tracee the tracer lost track of): tests assert that it
// does not grow.
func DetachTimeouts() int64 { return detachTimeouts.Load() }

// noteDetached closes detached once the detach has let go of every
// tracee (call with mu held). The tracer loop may still be blocked
// waiting for the root, which is no longer traced; it returns when the
// root exits.
func (w *Tracer) noteDetached() {
	if w.ending && len(w.ts) == 0 {
		w.detached.close()
	}
}

// tracee is the tracer's view of one traced thread.
type tracee struct {
	// fresh: auto-attached, its first stop (a SIGSTOP) not seen yet.
	fresh bool
	// stopping: we sent it SIGSTOP to detach it.
	stopping bool
	// held: it is in a group-stop (someone stopped it) and stays stopped.
	held bool
}

const (
	// Processes, not threads: PTRACE_O_TRACECLONE would stop every thread
	// a server starts three times (its clone, its first stop, the detach),
	// and measured it nearly doubled a Go server's launch on a loaded
	// machine, while capture without it cost about what no capture costs.
	// The price: an execve from a thread other than the main one escapes
	// (the kernel drops the old leader's tracing); its evidence then names
	// the previous program and is not used (ExecEnv.Exe), and the process
	// is never signalled for the detach (tracedByUs).
	//
	// PTRACE_O_EXITKILL: a tracer that dies (childproof SIGKILLed during
	// the start window, before the worker is verified and everything is
	// detached) takes its tracees with it, SIGKILLed by the kernel —
	// instead of leaving them frozen for ever in a ptrace stop (state t)
	// or running on half-started. What was forked untraced meanwhile is
	// still found by the launch's journal record (cgroup, marker).
	ptraceOptions    = unix.PTRACE_O_TRACEEXEC | unix.PTRACE_O_TRACEFORK | unix.PTRACE_O_TRACEVFORK | unix.PTRACE_O_EXITKILL
	ptraceGetSiginfo = 0x4202
	waitAll          = 0x40000000 // __WALL: threads and non-SIGCHLD children too
	waitNoThread     = 0x20000000 // __WNOTHREAD: this thread's children and tracees only
)

// run is the tracer loop; it returns once nothing is traced.
//
// It blocks in waitid(P_ALL, …, __WNOTHREAD) on the tracer thread: that
// sees only this thread's own children (the root) and its own tracees —
// never another launch's processes, nor the caller's other children — and
// wakes as soon as one of them stops or exits, without a poll. Statuses
// are peeked (WNOWAIT) first: the root's exit is left to exec.Cmd.Wait.
// Detach (on its caller's goroutine) SIGSTOPs every tracee, which wakes
// the tracer; each is then detached at that stop.
func (w *Tracer) run() {
	// The root's first stop: SIGTRAP right after its execve.
	if !w.firstStop(w.ts) {
		return
	}
	w.mu.Lock()
	w.tracing = true
	w.stopForDetach() // Detach was called before the loop ran
	w.mu.Unlock()
	defer func() {
		w.mu.Lock()
		w.tracing = false
		w.mu.Unlock()
	}()
	for {
		w.mu.Lock()
		n := len(w.ts)
		w.mu.Unlock()
		if n == 0 {
			return
		}
		if w.rootExited {
			w.drain()
			return
		}
		if w.polling {
			w.pollOnce()
			continue
		}
		pid, code, ok := waitAny()
		if !ok {
			return // ECHILD: nothing of ours is left
		}
		w.mu.Lock()
		_, known := w.ts[pid]
		w.mu.Unlock()
		if pid != w.root && !known && code != cldTrapped {
			// A child of this thread that is not ours (a thread the
			// runtime reused, or the process's main thread adopting
			// orphans): never touch its status; poll our tracees instead.
			w.polling = true
			continue
		}
		if pid == w.root && code != cldTrapped {
			w.mu.Lock()
			delete(w.ts, pid)
			if code == cldStopped || code == cldContinued {
				// The root is no longer traced (an exec from another
				// thread dropped it) and was stopped or continued: its
				// statuses are exec.Cmd.Wait's; poll the rest by pid.
				w.polling = true
			} else {
				// The root exited: its status is exec.Cmd.Wait's. Detach
				// from the rest of the tree, polling it (a peek of P_ALL
				// would see the root's status again and again).
				w.rootExited = true
				w.ending = true
				w.stopAll(w.ts)
			}
			w.noteDetached()
			w.mu.Unlock()
			continue
		}
		w.consume(pid)
	}
}

// drain detaches from what is still traced once the root has exited,
// polling each tracee.
func (w *Tracer) drain() {
	for {
		w.mu.Lock()
		w.ending = true
		w.stopAll(w.ts)
		n := len(w.ts)
		w.mu.Unlock()
		if n == 0 {
			return
		}
		w.pollOnce()
	}
}

// pollOnce consumes what each tracee has pending, by its own pid (never
// another process's status), then pauses 100 µs.
func (w *Tracer) pollOnce() {
	w.mu.Lock()
	pids := make([]int, 0, len(w.ts))
	for pid := range w.ts {
		if pid != w.root || !w.rootExited {
			pids = append(pids, pid)
		}
	}
	w.mu.Unlock()
	for _, pid := range pids {
		if pid == w.root {
			// Peek first: the root's exit is exec.Cmd.Wait's.
			if code, _, ok := peek(pid, true); ok && code != cldTrapped {
				w.mu.Lock()
				w.rootExited = true
				delete(w.ts, pid)
				w.mu.Unlock()
				continue
			}
		}
		w.consume(pid)
	}
	ts := unix.NsecToTimespec(int64(100 * time.Microsecond))
	unix.Nanosleep(&ts, nil)
}

// consume takes pid's pending stop or exit (if any) and handles it.
func (w *Tracer) consume(pid int) {
	var ws unix.WaitStatus
	n, err := unix.Wait4(pid, &ws, waitAll|waitNoThread|unix.WNOHANG, nil)
	w.mu.Lock()
	defer w.mu.Unlock()
	if err != nil {
		if errors.Is(err, unix.ECHILD) {
			delete(w.ts, pid) // gone (a thread replaced by an exec)
		}
		return
	}
	if n != pid {
		return
	}
	if ws.Exited() || ws.Signaled() {
		delete(w.ts, pid)
		if pid != w.root && len(w.gone) < maxGone {
			w.gone[pid] = true
		}
		w.noteDetached()
		return
	}
	if !ws.Stopped() {
		return
	}
	t := w.ts[pid]
	if t == nil {
		// Seen before its parent's fork event: an auto-attached tracee.
		t = &tracee{fresh: true}
		w.ts[pid] = t
	}
	w.handleStop(w.ts, pid, t, ws, w.ending)
	w.noteDetached()
}

// waitAny blocks until one of the tracer thread's children or tracees
// has a stop or exit to report, and returns it without consuming it.
func waitAny() (pid, code int, ok bool) {
	pid, code, _, ok = waitPeek(unix.P_ALL, 0, unix.WEXITED|unix.WSTOPPED|unix.WNOWAIT|waitAll|waitNoThread)
	return pid, code, ok
}

// waitPeek runs waitid(idType, id, options) and returns the reported pid,
// siginfo code (CLD_EXITED, CLD_TRAPPED, …) and status; ok is false when
// nothing was reported (WNOHANG) or on error. A wait without WNOHANG
// gives the thread's P back while it blocks (waitidBlocking).
func waitPeek(idType, id, options int) (pid, code, status int, ok bool) {
	var info unix.Siginfo
	for {
		var err error
		if options&unix.WNOHANG != 0 {
			err = unix.Waitid(idType, id, &info, options, nil)
		} else if e := waitidBlocking(idType, id, &info, options); e != 0 {
			err = e
		}
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return 0, 0, 0, false
		}
		break
	}
	// siginfo_t for SIGCHLD: si_signo, si_errno, si_code, pad, si_pid, si_uid, si_status.
	raw := (*[32]byte)(unsafe.Pointer(&info))
	pid = int(*(*int32)(unsafe.Pointer(&raw[16])))
	return pid, int(info.Code), int(*(*int32)(unsafe.Pointer(&raw[24]))), pid > 0
}

// firstStop waits for the root's post-exec SIGTRAP, captures its environ,
// sets the tracing options and lets it run.
func (w *Tracer) firstStop(ts map[int]*tracee) bool {
	for {
		code, _, ok := peek(w.root, false)
		if !ok {
			return false
		}
		if code != cldTrapped {
			// It died before its first instruction: leave the status to Wait.
			w.rootExited = true
			return false
		}
		var ws unix.WaitStatus
		if n, err := unix.Wait4(w.root, &ws, waitAll|waitNoThread, nil); err != nil || n != w.root {
			return false
		}
		if !ws.Stopped() {
			continue
		}
		w.capture(w.root)
		if w.clearDeath {
			if err := clearDeathSignal(w.root); err != nil {
				// It would die with this thread (when childproof exits)
				// after it was verified: end it now, before its first
				// instruction, and say why.
				w.mu.Lock()
				w.fault = fmt.Errorf("cannot clear the launched root's parent-death signal: %w (CHILDPROOF_NO_EXEC_CAPTURE=1 starts it untraced)", err)
				w.mu.Unlock()
				unix.Kill(w.root, unix.SIGKILL)
				unix.PtraceCont(w.root, 0)
				w.rootExited = true
				return false
			}
		}
		unix.PtraceSetOptions(w.root, ptraceOptions)
		w.mu.Lock()
		ts[w.root] = &tracee{}
		w.mu.Unlock()
		unix.PtraceCont(w.root, 0)
		return true
	}
}

func (w *Tracer) handleStop(ts map[int]*tracee, pid int, t *tracee, ws unix.WaitStatus, ending bool) {
	sig := ws.StopSignal()
	if ending && !t.stopping && !t.fresh {
		// Traced after the detach began: ask it to stop too.
		t.stopping = true
		unix.Syscall(unix.SYS_TKILL, uintptr(pid), uintptr(unix.SIGSTOP), 0)
	}
	if sig == unix.SIGTRAP && ws.TrapCause() > 0 {
		switch ws.TrapCause() {
		case unix.PTRACE_EVENT_EXEC:
			w.capture(pid)
		case unix.PTRACE_EVENT_FORK, unix.PTRACE_EVENT_VFORK, unix.PTRACE_EVENT_CLONE:
			if msg, err := unix.PtraceGetEventMsg(pid); err == nil && msg > 0 {
				child := int(msg)
				w.env.fork(pid, child)
				if w.gone[child] {
					// Its attach stop and its exit were both
					// consumed before this event: nothing to add.
					delete(w.gone, child)
				} else if _, known := ts[child]; !known {
					ts[child] = &tracee{fresh: true}
				}
			}
		}
		unix.PtraceCont(pid, 0)
		return
	}
	if sig == unix.SIGSTOP && (t.fresh || t.stopping) {
		// Its attach stop, or the stop we asked for to detach it: suppress.
		t.fresh = false
		if ending || t.stopping {
			unix.PtraceDetach(pid)
			delete(ts, pid)
			return
		}
		unix.PtraceCont(pid, 0)
		return
	}
	if isStopSignal(sig) && groupStop(pid) {
		// A group-stop (someone stopped the process): it stays stopped.
		if ending {
			unix.PtraceDetach(pid)
			delete(ts, pid)
			return
		}
		t.held = true
		return
	}
	// A signal on its way to the tracee: note who sent it, deliver it.
	if sig != unix.SIGCHLD && sig != unix.SIGURG && len(w.signals) < maxSignals {
		w.noteSignal(pid, sig)
	}
	unix.PtraceCont(pid, int(sig))
}

// noteSignal records the signal pid is stopped for on its delivery
// (call with mu held): the sender's pid and uid from PTRACE_GETSIGINFO,
// and its comm read at once (a subshell that sent it may be gone a
// moment later). SIGCHLD and SIGURG (a shell's children, the Go
// runtime's preemption) are not recorded; nothing here runs unless a
// signal is delivered.
func (w *Tracer) noteSignal(pid int, sig unix.Signal) {
	var info unix.Siginfo
	if _, _, e := unix.Syscall6(unix.SYS_PTRACE, ptraceGetSiginfo, uintptr(pid), 0, uintptr(unsafe.Pointer(&info)), 0, 0); e != 0 {
		return
	}
	// siginfo_t: si_signo, si_errno, si_code, pad, then si_pid, si_uid
	// for a signal a process sent (kill, tkill, sigqueue).
	raw := (*[32]byte)(unsafe.Pointer(&info))
	s := verify.Signal{Signal: unix.SignalName(sig), ToPid: pid, AfterMs: time.Since(w.start).Milliseconds()}
	switch code := info.Code; {
	case code <= 0: // SI_USER, SI_QUEUE, SI_TKILL…: a process sent it
		s.FromPid = int(*(*int32)(unsafe.Pointer(&raw[16])))
		s.FromUID = int(*(*uint32)(unsafe.Pointer(&raw[20])))
		if b, err := os.ReadFile("/proc/" + strconv.Itoa(s.FromPid) + "/comm"); err == nil {
			s.FromComm = strings.TrimSuffix(string(b), "\n")
		}
	case code == 0x80: // SI_KERNEL
		s.Kernel = verify.KernelOther
	case sig == unix.SIGSEGV || sig == unix.SIGBUS || sig == unix.SIGFPE || sig == unix.SIGILL || sig == unix.SIGTRAP:
		s.Kernel = verify.KernelFault
	default:
		s.Kernel = verify.KernelOther
	}
	w.signals = append(w.signals, s)
}

// StartFault says why the root was ended at its first stop, or nil.
func (w *Tracer) StartFault() error {
	if w == nil {
		return nil
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.fault
}

// SignalsSeen returns the signals the watch recorded so far.
func (w *Tracer) SignalsSeen() []verify.Signal {
	if w == nil {
		return nil
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	return slices.Clone(w.signals)
}

// stopAll asks every running tracee to stop so it can be detached. A
// tracee's tid cannot be reused while we trace it (its tracer must reap
// it first), so tkill reaches exactly that thread.
func (w *Tracer) stopAll(ts map[int]*tracee) {
	for pid, t := range ts {
		if t.held {
			// Stopped in a ptrace-stop already: detach it as it is.
			unix.PtraceDetach(pid)
			delete(ts, pid)
			continue
		}
		if t.stopping || t.fresh {
			continue // a fresh tracee has its SIGSTOP pending already
		}
		if !w.tracedByUs(pid) {
			// Not ours any more (an exec from an untraced thread): never
			// signal it.
			delete(ts, pid)
			continue
		}
		t.stopping = true
		unix.Syscall(unix.SYS_TKILL, uintptr(pid), uintptr(unix.SIGSTOP), 0)
	}
}

// maxGone caps the exited tracees remembered for late fork events.
const maxGone = 4096

// sweep drops the entries of ts that are no longer tracees of ours
// (call with mu held, while detaching).
func (w *Tracer) sweep() {
	for pid := range w.ts {
		if !w.tracedByUs(pid) {
			delete(w.ts, pid)
		}
	}
}

// tracedByUs reports whether pid's tracer is the tracer thread.
func (w *Tracer) tracedByUs(pid int) bool {
	ours := false
	proc.ScanFile("/proc/"+strconv.Itoa(pid)+"/status", func(b []byte) {
		for line := range bytes.Lines(b) {
			if v, ok := bytes.CutPrefix(line, []byte("TracerPid:")); ok {
				n, err := strconv.Atoi(string(bytes.TrimSpace(v)))
				ours = err == nil && n == w.tracer
				return
			}
		}
	})
	return ours
}

// capture reads pid's environ at its exec stop.
func (w *Tracer) capture(pid int) {
	var fs proc.FS
	b, err := fs.EnvironRaw(pid)
	if err != nil {
		return
	}
	exe, _ := fs.Exe(pid)
	// The comm is stat's: the task's comm, as /proc/PID/comm shows it
	// (one file read fewer at each exec stop).
	var comm, area string
	if st, err := fs.Stat(pid); err == nil {
		comm, area = st.Comm, verify.ExecArea(st)
	} else {
		comm, _ = fs.Comm(pid)
	}
	w.env.set(pid, Capture{Vars: proc.ParseEnviron(b), Exe: exe, Comm: comm, Area: area})
}

// ExecComm returns pid's comm at its last exec, or "".
func (w *Tracer) ExecComm(pid int) string {
	e, _ := w.Evidence(pid)
	return e.Comm
}

const (
	cldTrapped   = 4 // CLD_TRAPPED
	cldStopped   = 5 // CLD_STOPPED
	cldContinued = 6 // CLD_CONTINUED
)

// peek looks at pid's pending wait state without consuming it (WNOWAIT):
// the siginfo code (CLD_EXITED, CLD_TRAPPED, …) and status. ok is false
// when there is nothing (with nohang) or on error.
func peek(pid int, nohang bool) (code, status int, ok bool) {
	opts := unix.WEXITED | unix.WSTOPPED | unix.WNOWAIT | waitAll
	if nohang {
		opts |= unix.WNOHANG
	}
	_, code, status, ok = waitPeek(unix.P_PID, pid, opts)
	return code, status, ok
}

func isStopSignal(s unix.Signal) bool {
	return s == unix.SIGSTOP || s == unix.SIGTSTP || s == unix.SIGTTIN || s == unix.SIGTTOU
}

// groupStop reports whether pid's stop is a group-stop rather than a
// signal-delivery-stop: PTRACE_GETSIGINFO fails with EINVAL then.
func groupStop(pid int) bool {
	var info unix.Siginfo
	_, _, e := unix.Syscall6(unix.SYS_PTRACE, ptraceGetSiginfo, uintptr(pid), 0, uintptr(unsafe.Pointer(&info)), 0, 0)
	return e == unix.EINVAL
}
