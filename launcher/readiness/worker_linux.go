package readiness

import (
	"context"
	"errors"
	"time"

	"github.com/childproof/childproof/internal/fdwait"
	"github.com/childproof/childproof/internal/pidfd"
	"github.com/childproof/childproof/launcher/output"
	"github.com/childproof/childproof/launcher/treeevents"
	"github.com/childproof/childproof/proc"
)

// End is how a wait for readiness ended.
type End int

const (
	// Ready: the check passed (or the line came).
	Ready End = iota
	// Exited: the worker exited first.
	Exited
	// Interrupted: the wait's context ended first.
	Interrupted
	// TimedOut: the deadline passed first.
	TimedOut
)

// Worker is a worker whose readiness is waited for, and what wakes the
// wait. Safe for concurrent use if Members is (its waits share nothing).
type Worker struct {
	// Proc is the proc FS the tree is read through.
	Proc proc.FS
	// Pid is the worker's pid, Fd its pidfd.
	Pid, Fd int
	// Members lists the tree's pids.
	Members func() []int
	// Lines is rung on every line the tree prints (nil: none).
	Lines Bell
	// Events is the tree's fork, exec and exit events (nil: none).
	Events *treeevents.Events
}

// watchListen takes the first look at the listening sockets of the
// worker's network namespace.
func (w Worker) watchListen() *listenWatch { return newListenWatch(w.Proc, w.Pid, w.Members) }

// wakes is what wakes a wait on the worker: its lines, its tree's
// events and lw (nil: no listening sockets), with fds, the set of its
// pidfd and their fds (fds.Set).
func (w Worker) wakes(lw *listenWatch, fds *fdwait.Set) wakes {
	return wakes{lines: w.Lines, tree: w.Events, listen: lw, fds: fds}
}

// fds is the set a wait on the worker waits on: its pidfd, its lines'
// and its tree's events' fds (close it).
func (w Worker) fds() *fdwait.Set {
	return fdwait.New(w.Fd, pollFd(w.Lines), w.Events.ReadyFd())
}

// Until runs check, paced by a pacer and woken by the tree, until it
// passes, the worker exits, ctx ends or the deadline passes (checked in
// that order, the exit before each run). waiting is told what the last
// run said before each wait. last is what the last run that was not cut
// short by the deadline said (nil when it passed).
func (w Worker) Until(ctx context.Context, deadline time.Time, check func(deadline time.Time) error, waiting func(last error)) (end End, last error) {
	p := newPacer()
	// Sockets that appear in the tree wake the wait: taken after the
	// first probe failed (most are answered at once).
	var lw *listenWatch
	var fds *fdwait.Set
	defer func() { lw.close(); fds.Close() }()
	for {
		if pidfd.Exited(w.Fd) {
			return Exited, last
		}
		err := check(deadline)
		p.ran()
		if err == nil {
			return Ready, nil
		}
		if last == nil || !errors.Is(err, errCutShort) {
			last = err
		}
		if ctx.Err() != nil {
			return Interrupted, last
		}
		if !time.Now().Before(deadline) {
			return TimedOut, last
		}
		waiting(last)
		if lw == nil {
			lw, fds = w.watchListen(), w.fds()
		}
		wait(ctx, w.Fd, p.due(), deadline, p, w.wakes(lw, fds))
	}
}

// UntilLine waits, within the deadline, until matched reports a line of
// the worker's output matched, waking on each line it prints and on its
// exit; a line matched by the time the worker exited counts.
func (w Worker) UntilLine(ctx context.Context, deadline time.Time, matched func() bool) End {
	// Without a wake-up (no eventfd) the log is looked at every
	// output.FollowEvery, as it is read.
	every := probeSlowest
	if pollFd(w.Lines) < 0 {
		every = output.FollowEvery
	}
	p := &pacer{every: every}
	var fds *fdwait.Set
	defer func() { fds.Close() }()
	for !matched() {
		if pidfd.Exited(w.Fd) {
			if matched() {
				break
			}
			return Exited
		}
		if ctx.Err() != nil {
			return Interrupted
		}
		if !time.Now().Before(deadline) {
			return TimedOut
		}
		if fds == nil {
			fds = w.fds()
		}
		wait(ctx, w.Fd, time.Now().Add(every), deadline, p, w.wakes(nil, fds))
	}
	return Ready
}

// UntilFunc runs f, paced by a pacer and woken by the tree, until it
// returns nil, the worker exits, ctx ends or the deadline passes
// (checked after each wait, in that order); f's context ends at the
// deadline. waiting is told what f returned before each wait; last is
// what it returned last (nil when it passed).
func (w Worker) UntilFunc(ctx context.Context, deadline time.Time, f func(context.Context) error, waiting func(last error)) (end End, last error) {
	fctx, cancel := context.WithDeadline(ctx, deadline)
	defer cancel()
	p := newPacer()
	var lw *listenWatch
	var fds *fdwait.Set
	defer func() { lw.close(); fds.Close() }()
	for {
		err := f(fctx)
		p.ran()
		if err == nil {
			return Ready, nil
		}
		waiting(err)
		if lw == nil {
			lw, fds = w.watchListen(), w.fds()
		}
		wait(ctx, w.Fd, p.due(), deadline, p, w.wakes(lw, fds))
		switch {
		case pidfd.Exited(w.Fd):
			return Exited, err
		case ctx.Err() != nil:
			return Interrupted, err
		case !time.Now().Before(deadline):
			return TimedOut, err
		}
	}
}
