package launcher

import (
	"context"
	"fmt"
	"regexp"
	"time"

	"github.com/childproof/childproof/internal/probe"
	"github.com/childproof/childproof/internal/wakeup"
	"github.com/childproof/childproof/launcher/output"
	"github.com/childproof/childproof/launcher/readiness"
	"github.com/childproof/childproof/launcher/runas"
	"github.com/childproof/childproof/verify"
)

// outputWatch is what the launch's follower looks for: Options.Ready.Log,
// the spec's ready.log, and a wake-up on every line for readiness waits
// when the wait has a probe that a line may make worth running again, and
// for the find loop of a foreground launch when the spec declares a port
// (a server says it listens).
func (la *Launch) outputWatch() output.Watch {
	w := output.Watch{Opt: la.opts.Ready.Log, OptN: la.opts.Ready.LogCount}
	if la.Spec.Ready.Log != "" {
		w.Spec, _ = regexp.Compile(la.Spec.Ready.Log) // checked by the schema
	}
	if la.Spec.Ready.Kind() != "tcp" || la.opts.Ready.Log != nil || la.opts.Ready.Func != nil {
		if la.notes.wake == nil {
			la.notes.wake = wakeup.New()
		}
		w.Wake = la.notes.wake.Ring
	}
	if len(la.Spec.Ports) > 0 && !la.opts.Detach {
		// (Foreground only: a detached launch's lines come through the
		// log, which only a follower started for them would read.)
		w.Wake = la.findWakeToo(w.Wake)
	}
	return w
}

// findWakeToo returns ring that also wakes the find loop's pacer
// (notes.findWake), which it makes.
func (la *Launch) findWakeToo(ring func()) func() {
	if la.notes.findWake == nil {
		la.notes.findWake = make(chan struct{}, 1)
	}
	fw := la.notes.findWake
	return func() {
		if ring != nil {
			ring()
		}
		select {
		case fw <- struct{}{}:
		default:
		}
	}
}

// readyWorker is worker (wfd its pidfd) as a readiness wait sees it:
// woken by the launch's lines and its tree's events.
func (la *Launch) readyWorker(worker, wfd int) readiness.Worker {
	return readiness.Worker{Proc: la.opts.Proc, Pid: worker, Fd: wfd, Members: func() []int { return la.tree.Members() },
		Lines: la.notes.wake, Events: la.events}
}

// probeReady waits for the spec's readiness (a TCP connect to each port,
// the GET of ready.http judged by ready.status, ready.exec exiting 0, a
// line matching ready.log), within the deadline: the socket table already
// says the worker owns its ports, so a connect cannot be answered by
// anyone else (nor by itself). A worker that exits meanwhile is exit 5;
// the deadline is the not-ready failure with what the last probe said.
func (la *Launch) probeReady(ctx context.Context, r *verify.Report, c verify.Check, worker, wfd int, deadline time.Time) error {
	l := la.Spec
	kind := l.Ready.Kind()
	if kind == "tcp" && len(l.Ports) == 0 {
		return nil
	}
	if kind == "log" {
		return la.waitLine(ctx, r, worker, wfd, deadline, la.out.SpecMatched, fmt.Sprintf("no line of its output matched Ready.Log %q", l.Ready.Log))
	}
	check := la.readyCheck(c)
	// A worker in another network namespace is reached from there.
	pctx := probe.FromNetNSOf(ctx, la.opts.Proc.Root, worker)
	end, last := la.readyWorker(worker, wfd).Until(ctx, deadline,
		func(deadline time.Time) error { return check(pctx, deadline) },
		func(last error) {
			pr := la.progressBase(r.Attempts, deadline.Add(-l.ReadyTimeout()))
			pr.Phase, pr.Worker, pr.Comm, pr.Last = PhaseReady, worker, la.worker.Comm, last.Error()
			la.progress(pr)
		})
	switch end {
	case readiness.Ready:
		return nil
	case readiness.Exited:
		return la.exitedError(r, la.exitWhat(worker))
	case readiness.Interrupted:
		return la.interrupted(r, ctx.Err())
	}
	e := la.notReadyError(r, last.Error())
	answered(e, last, l)
	return e
}

// readyCheck returns one probe of the spec's kind: ready.exec run once,
// or a TCP connect / GET of every declared port.
func (la *Launch) readyCheck(c verify.Check) func(ctx context.Context, deadline time.Time) error {
	l := la.Spec
	if len(l.Ready.Exec) > 0 {
		cred, _ := runas.Credential(l)
		return readiness.Exec{Argv: l.Ready.Exec, PATH: la.Env.Vars["PATH"], Dir: la.dir(), Env: la.Env.List(), Cred: cred, Secrets: la.Env.Secrets()}.Run
	}
	var match func(int, []byte) error
	if la.opts.Ready.Status != nil || la.opts.Ready.Body != nil || len(l.Ready.Status) > 0 {
		match = func(code int, body []byte) error {
			if !l.Ready.StatusOK(code) && len(l.Ready.Status) > 0 {
				return &probe.StatusError{Code: code}
			}
			if la.opts.Ready.Status != nil || la.opts.Ready.Body != nil {
				return la.opts.Ready.matchHTTP(code, body)
			}
			return nil
		}
	}
	return readiness.Connect(c.Ports, c.ReadyHTTP, match)
}

// waitLine waits, within the deadline, until matched reports a line of
// the worker's output matched (what: the not-ready failure's words),
// waking on each line it prints and on its exit.
func (la *Launch) waitLine(ctx context.Context, r *verify.Report, worker, wfd int, deadline time.Time, matched func() bool, what string) error {
	pr := la.progressBase(r.Attempts, deadline.Add(-la.Spec.ReadyTimeout()))
	pr.Phase, pr.Worker, pr.Comm, pr.Last = PhaseReady, worker, la.worker.Comm, what
	la.progress(pr)
	switch la.readyWorker(worker, wfd).UntilLine(ctx, deadline, matched) {
	case readiness.Exited:
		return la.exitedError(r, la.exitWhat(worker))
	case readiness.Interrupted:
		return la.interrupted(r, ctx.Err())
	case readiness.TimedOut:
		return la.notReadyError(r, what)
	}
	return nil
}
