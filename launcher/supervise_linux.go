package launcher

import (
	"context"
	"errors"
	"fmt"
	"os"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/childproof/childproof/internal/fdwait"
	"github.com/childproof/childproof/internal/pidfd"
	"github.com/childproof/childproof/launcher/census"
	"github.com/childproof/childproof/launcher/memberwatch"
	"github.com/childproof/childproof/launcher/proctree"
	"github.com/childproof/childproof/launcher/runas"
	"github.com/childproof/childproof/launcher/sigtree"
	"github.com/childproof/childproof/outcome"
	"github.com/childproof/childproof/proc"
	"github.com/childproof/childproof/verify"
)

// Signal forwards sig to the launch's process group (through the root's
// pidfd) and to members that left it; never to the caller.
func (la *Launch) Signal(sig syscall.Signal) {
	t := la.tree
	la.mu.Lock()
	defer la.mu.Unlock()
	if !la.finished {
		t.Signal(unix.Signal(sig))
	}
}

// Wait waits for the launch to end, stops whatever it left behind,
// releases the lock, marks the record stopped and returns how it ended.
//
// When the worker is the launched process, the launch ends when it exits,
// with its status.
//
// Otherwise Wait follows the worker: a wrapper that did not exec, a
// supervisor that starts its workers, a worker started in the background.
// When the worker exits while its tree runs on, the process the launch's
// selector picks in the live tree within the spec's ready.timeout (a
// respawn) becomes the worker. It is judged at once (see
// awaitReplacement), and the launch goes on.
//
// The launch ends once no replacement comes, with one of three statuses.
// A worker that was re-parented to the caller, because its parents had
// exited (a worker started in the background), gives its own. Else a
// root that exited gives the root's: a wrapper that waited for the
// worker, or a supervisor that gave up, is the main process, as in
// systemd. Else the root runs on without a worker, Wait stops it, and the
// status is the last worker's, read from its pidfd (Linux 6.15 and
// later), or the root's where that cannot be read.
func (la *Launch) Wait() ExitStatus {
	t := la.tree
	la.mu.Lock()
	wfd, worker := la.worker.fd, la.worker.Pid
	la.mu.Unlock()
	te := la.events
	if wfd < 0 || worker == t.Root.FP.Pid {
		for !t.Root.Exited() {
			tick := time.NewTimer(memberwatch.Every(te))
			select {
			case <-t.Root.Done:
				tick.Stop()
			case <-te.ChangedCh():
				tick.Stop()
				la.mu.Lock()
				if !la.finished {
					t.ReapOrphans(0)
					la.watchMembers(true)
				}
				la.mu.Unlock()
			case <-tick.C:
				// Double-forked orphans re-parented to a subreaper caller.
				la.mu.Lock()
				if !la.finished {
					t.ReapOrphans(0)
					la.watchMembers(false)
				}
				la.mu.Unlock()
			}
		}
		la.finish(2 * time.Second)
		la.noteEnd(la.rootStatus())
		return t.Root.Status
	}
	// ws is the last worker's wait status when reaped reports it: from
	// wait4 when it was re-parented to the caller (a subreaper: its
	// parents had exited), else from its pidfd once its parent reaped it
	// (pidfd.Status).
	var ws unix.WaitStatus
	reaped, known := false, false
	for {
		fds := fdwait.New(wfd, te.WatchFd())
		for !pidfd.Exited(wfd) {
			fds.Wait(context.Background(), time.Now().Add(memberwatch.Every(te)))
			moved := te.DrainWatch()
			la.mu.Lock()
			if !la.finished {
				t.ReapOrphans(worker)
				la.watchMembers(moved)
			}
			la.mu.Unlock()
		}
		fds.Close()
		reaped, known = false, false
		if s, err := t.P.Stat(worker); err == nil && s.PPid == os.Getpid() {
			if pid, err := unix.Wait4(worker, &ws, 0, nil); err == nil && pid == worker {
				reaped, known = true, true
			}
		}
		// While its tree runs on, the worker's exit need not end the
		// launch: a supervisor in the tree may start another (a node
		// cluster primary, gunicorn --max-requests, uWSGI recycling),
		// which becomes the worker.
		if la.awaitReplacement(worker) == 0 {
			la.mu.Lock()
			if !known && !la.finished {
				ws, known = pidfd.Status(wfd)
			}
			la.mu.Unlock()
			break
		}
		la.mu.Lock()
		wfd, worker = la.worker.fd, la.worker.Pid
		la.mu.Unlock()
	}
	if !reaped {
		// A wrapper that waited for the worker ends with its own status
		// (systemd's main process): give it a moment to.
		select {
		case <-t.Root.Done:
		case <-time.After(2 * time.Second):
		}
	}
	rootEnded := t.Root.Exited()
	la.finish(2 * time.Second)
	if reaped || known && !rootEnded {
		sws := syscall.WaitStatus(ws)
		la.noteEnd(&sws)
		return sigtree.WaitStatus(sws)
	}
	la.noteEnd(la.rootStatus())
	return t.Root.Status
}

// NoteRestart records that la is the n-th restart of its launch, after a
// worker that exited with code (Record.Restarts, LastExit).
func (la *Launch) NoteRestart(n, code int) error {
	if la.Record == nil {
		return nil
	}
	la.Record.Restarts, la.Record.LastExit = n, &code
	return la.State.Save(la.Record)
}

// Stop sends the tree its stop signal, the spec's stop.signal or else
// SIGTERM. It waits until the tree is gone or ctx is done, then SIGKILLs
// what is left. A ctx without a deadline waits Options.StopGrace, else the
// spec's stop.timeout, else DefaultStopGrace. Stop returns once the root
// is reaped, saying what it did. A second Stop, or one after Wait, says
// what the first did. A record that could not be marked stopped
// (State.MarkStopped) is the result's RecordErr and the error, as
// State.RecordFailure words it; the tree is stopped all the same.
func (la *Launch) Stop(ctx context.Context) (*StopResult, error) {
	grace := la.Spec.Stop.EffectiveTimeout()
	if la.opts.StopGrace > 0 {
		grace = la.opts.StopGrace
	}
	if d, ok := ctx.Deadline(); ok {
		grace = max(time.Until(d), 0)
	}
	la.finish(grace)
	la.noteEnd(nil)
	la.mu.Lock()
	defer la.mu.Unlock()
	res := *la.stopped
	if res.RecordErr != nil {
		return &res, census.UnmarkedError(la.State.Dir, la.Spec.Name, res.RecordErr)
	}
	return &res, nil
}

// finish terminates the tree once, marks the record stopped and releases
// the lock. The tree's events are let go first: nothing that ends the
// tree reads them (terminate looks at the cgroup, /proc and pidfds, and
// Wait's loop waits for it on la.mu), and a subscription that ends
// before the stop signal spares the hub's reader the exits it would
// otherwise wake up for (one event per thread of the tree).
func (la *Launch) finish(grace time.Duration) {
	la.stopOnce.Do(func() {
		la.events.Close()
		la.terminate(grace)
		la.out.Stop()
		if la.Record != nil {
			// Only while the record file still describes this launch: a
			// newer one (a run after a detached launch let go of the
			// lock) is never marked.
			var exit *int
			if la.Spec.Oneshot && la.tree.Root.Exited() {
				code := la.tree.Root.Status.ExitCode()
				exit = &code
			}
			mark := la.State.MarkStopped
			if la.lock != nil {
				// Held since the start wrote the record (a foreground
				// launch): the file is the start's last write.
				mark = la.State.MarkStoppedHeld
			}
			if _, err := mark(la.Record, exit); err != nil {
				la.mu.Lock()
				if la.stopped != nil {
					la.stopped.RecordErr = err
				}
				la.mu.Unlock()
			}
		}
		la.lock.Unlock()
		if la.testState {
			releaseTestState()
		}
	})
}

// abort stops everything a failed attempt started.
func (la *Launch) abort() {
	if la.tree == nil || la.tree.Root == nil {
		la.exec.watch.Detach()
		la.closeFDs()
		la.pipe.Finish(time.Second)
		if la.tree != nil {
			proctree.RemoveCgroup(la.tree.Cgroup)
		}
		la.out.Stop()
		la.watchdog.Release()
		return
	}
	// Stopped while still traced: a process the tree forks meanwhile (a
	// daemon whose title hides the marker) is seen forked and stopped
	// with it (sigtree.Tree.Member); the tracer lets go of what is left once
	// the root has exited.
	la.terminate(2 * time.Second)
	la.exec.watch.Detach()
	la.out.Stop()
	la.events.Close()
}

// terminate sends the tree its stop signal, waits up to grace, SIGKILLs what is left,
// reaps and cleans up. It returns once the root is reaped and every member
// seen is gone — also members re-parented away from us (no subreaper).
func (la *Launch) terminate(grace time.Duration) {
	t := la.tree
	la.mu.Lock()
	defer la.mu.Unlock()
	if la.finished {
		return
	}
	allGone := func() bool {
		// The root's reap first: it costs no system call.
		return t.Root.Exited() && t.WatchedGone() && len(t.Live()) == 0
	}
	before := la.worker.liveness(t.P)
	t.StopSig = sigtree.StopSignalOf(la.Spec.Stop.EffectiveSignal())
	t.RootFirst = true // allGone: the root's reap first
	signalled, killed := t.Terminate(context.Background(), grace, 0, allGone)
	<-t.Root.Done
	if killed {
		t.WaitGone(context.Background(), 2*time.Second, allGone)
	} else {
		// Terminate saw allGone: only the orphans its last look left
		// (a subreaper's) are reaped.
		t.ReapOrphans(0)
	}
	t.Unwatch()
	la.closeFDs()
	la.pipe.Finish(time.Second)
	proctree.RemoveCgroup(t.Cgroup)
	la.watchdog.Release()
	la.finished = true
	how := "it had already exited"
	switch {
	case killed:
		how = fmt.Sprintf("SIGKILL after %s", grace)
	case signalled:
		how = la.Spec.Stop.EffectiveSignal()
	}
	la.stopped = &StopResult{Worker: before, Signalled: signalled, Killed: killed, Exited: true,
		Message: fmt.Sprintf("%s: stopped the worker (pid %d) and its process group: %s; the launched process: %s", la.Spec.Name, la.worker.Pid, how, t.Root.Status)}
}

func (la *Launch) closeFDs() {
	if la.tree != nil {
		la.tree.ReleaseCgroup()
	}
	if la.tree != nil && la.tree.Leader >= 0 {
		unix.Close(la.tree.Leader)
		la.tree.Leader = -1
	}
	if la.worker.fd >= 0 {
		unix.Close(la.worker.fd)
		la.worker.fd = -1
	}
	la.closeRanks()
}

// liveness is Fingerprint.Check through the worker's held pidfd, without
// a pidfd of its own, on a kernel with pidfs (there a pidfd opened anew
// on a live worker is checked as this one is); elsewhere, or without a
// held pidfd, it is Check. A held pidfd whose process has not exited
// answers alone: that process still has the pid, so no other can, and
// its stat is not read. Once it has exited, the stat tells Gone from
// Reused.
func (w workerRef) liveness(p proc.FS) verify.Liveness {
	if w.fd < 0 || w.PidfsInode == 0 {
		return w.Check(p)
	}
	if !pidfd.Exited(w.fd) {
		return verify.Alive
	}
	s, err := p.Stat(w.Pid)
	switch {
	case err != nil && errors.Is(err, proc.ErrGone):
		return verify.Gone
	case err != nil:
		return verify.Unknown
	case s.StartTime != w.StartTime && s.State != 'Z':
		return verify.Reused // another process has the pid, and it runs
	}
	return verify.Gone
}

// Verify re-verifies the running launch on its worker.
func (la *Launch) Verify(ctx context.Context) (*verify.Report, error) {
	p := la.opts.Proc
	v := &verify.Verifier{Proc: p, State: la.State, ShowValues: la.opts.ShowValues}
	// The worker's and the ranks' pidfds are closed by a Stop: held
	// across the check, so that a Stop from another goroutine waits for
	// it (and a Verify during a Stop waits for the Stop) instead of
	// reading an fd number closed and perhaps reused.
	la.mu.Lock()
	defer la.mu.Unlock()
	if la.finished || la.worker.Check(p) != verify.Alive {
		r := verify.NewReport(la.Spec.Name)
		r.Add(verify.KindExited, "the worker (pid %d) is %s", la.worker.Pid, la.worker.Check(p))
		r.SetOutcome(outcome.Exited)
		return r, &Error{Outcome: outcome.Exited, Report: r, Msg: r.Problems[0].Message}
	}
	c := verify.CheckFromSpec(la.Spec, la.Env.Expect())
	c.Root, c.Worker, c.Tree = la.tree.Root.FP.Pid, la.worker.Pid, la.tree.Members()
	c.ExecEnv = la.exec.env
	c.AnyMember = la.Spec.Worker.N() > 1
	c.Owners = la.rankOwners()
	r := v.Verify(ctx, c)
	if la.Record != nil {
		// Every rank of a multi-process job, by its recorded evidence.
		VerifyRanks(ctx, v, la.Spec, c, la.Record, r)
	}
	runas.CheckLaunch(p, la.Spec, la.worker.Pid, r)
	r.Mask(la.Env.Secrets())
	if !r.Verified {
		return r, &Error{Outcome: r.Outcome, Report: r, Msg: r.Failure()}
	}
	return r, nil
}
