package group

import (
	"context"
	"errors"
	"os"
	"sync"
	"syscall"
	"time"

	"github.com/childproof/childproof/launcher"
)

// EscalationStep is a step an Escalation took.
type EscalationStep int

const (
	// Forwarded: the caller's first SIGINT or SIGTERM was sent on as it
	// is.
	Forwarded EscalationStep = iota + 1
	// Terminated: the stop signal (Term, SIGTERM by default) was sent
	// (at a second signal, or Grace after the first).
	Terminated
	// Killed: SIGKILL was sent (at the next signal, or Grace after
	// SIGTERM; again at each signal after that).
	Killed
)

// Escalation is how a foreground launch stops on the caller's signals,
// as docker run and the childproof command's run do: the first SIGINT or
// SIGTERM is forwarded as it is (the worker may have a way of its own to
// stop on it); a second one, or Grace after the first, escalates to
// SIGTERM; the next one (or Grace again) to SIGKILL. A launch with a stop
// signal of its own (Term) gets that at the first step, and SIGKILL at
// the next. Signal must be set. Next and Close are safe for concurrent use
// (Grace's timer calls Next too); set the fields before the first Next and
// leave them.
type Escalation struct {
	// Signal sends a signal to the launch (Launch.Signal, Group.Signal).
	Signal func(syscall.Signal)
	// Grace is how long each step has before the next; zero:
	// launcher.DefaultStopGrace.
	Grace time.Duration
	// Term is the launch's own stop signal (the spec's stop.signal).
	// Set, the first step sends it in place of the caller's signal (a
	// worker that treats SIGTERM as a reload gets the signal that stops
	// it) and the next one SIGKILL; zero: the caller's signal, then
	// SIGTERM, then SIGKILL.
	Term syscall.Signal
	// Step, when set, is told each step once it is taken, with the signal
	// it sent (so the caller can say it: a worker that ignores SIGINT
	// shows nothing). It is called with the Escalation's lock held: it
	// must not call Next or Close.
	Step func(EscalationStep, syscall.Signal)

	mu     sync.Mutex
	taken  int // steps taken: 0 none, 1 forwarded, 2 SIGTERM, 3+ SIGKILL
	timer  *time.Timer
	closed bool
}

// Next takes the next step of the stop: sig is the caller's signal (the
// one the first step forwards), 0 when Grace ran out.
func (e *Escalation) Next(sig syscall.Signal) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.closed {
		return
	}
	if e.timer != nil {
		e.timer.Stop()
	}
	e.taken++
	step := Forwarded
	switch {
	case e.taken == 1 && e.Term != 0:
		step, sig = Terminated, e.Term
	case e.taken == 1:
	case e.taken == 2 && e.Term == 0:
		step, sig = Terminated, syscall.SIGTERM
	default:
		step, sig = Killed, syscall.SIGKILL
	}
	e.Signal(sig)
	if e.Step != nil {
		e.Step(step, sig)
	}
	if step == Killed {
		return
	}
	grace := e.Grace
	if grace <= 0 {
		grace = launcher.DefaultStopGrace
	}
	e.timer = time.AfterFunc(grace, func() { e.Next(0) })
}

// Close ends the escalation: no step is taken after it returns.
func (e *Escalation) Close() {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.closed = true
	if e.timer != nil {
		e.timer.Stop()
	}
}

// Forward supervises a foreground launch that nothing restarts: it hands
// the caller's signals sigs on to la until la exits — SIGHUP as it is
// (la.Signal), each SIGINT or SIGTERM as e's next step — and returns
// once la's tree is reaped: nil when its root exited with 0, else an
// *ExitError with the status (128+signal when a signal killed it).
func Forward(la *launcher.Launch, sigs <-chan os.Signal, e *Escalation) error {
	go func() {
		defer e.Close()
		relay(sigs, la.Signal, e.Next, la.Done())
	}()
	if code := la.Wait().ExitCode(); code != 0 {
		return &ExitError{Name: la.Spec.Name, Code: code}
	}
	return nil
}

// SuperviseSignals is Supervise driven by the caller's signals sigs, as
// a foreground run or up is: SIGHUP is forwarded to every launch, and the
// first SIGINT or SIGTERM ends the supervision (nothing is restarted
// after it). With e, that signal reaches the launches through e (s.Cancel
// is e's first step, and each further signal its next); without, Supervise
// stops the group itself (s.WaitDelay), the signal the stop's cause.
func (g *Group) SuperviseSignals(ctx context.Context, sigs <-chan os.Signal, e *Escalation, s Supervision) error {
	ctx, stop := context.WithCancelCause(context.WithoutCancel(ctx))
	defer stop(nil)
	onStop := func(sig syscall.Signal) { stop(errors.New(sig.String())) }
	s.Cancel = nil
	if e != nil {
		defer e.Close()
		// The first signal is read by Cancel once Supervise saw ctx done.
		var first syscall.Signal
		onStop = func(sig syscall.Signal) {
			if ctx.Err() == nil {
				first = sig
				stop(errors.New(sig.String()))
				return
			}
			e.Next(sig)
		}
		s.Cancel = func() { e.Next(first) }
	}
	finished := make(chan struct{})
	defer close(finished)
	go relay(sigs, g.Signal, onStop, finished)
	return g.Supervise(ctx, s)
}

// relay hands the caller's signals on until done is closed: SIGHUP to
// hup (forwarded to what runs), each SIGINT or SIGTERM to stop.
func relay(sigs <-chan os.Signal, hup, stop func(syscall.Signal), done <-chan struct{}) {
	for {
		select {
		case s := <-sigs:
			if sig := s.(syscall.Signal); sig == syscall.SIGHUP {
				hup(sig)
			} else {
				stop(sig)
			}
		case <-done:
			return
		}
	}
}
