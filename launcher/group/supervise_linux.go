package group

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/childproof/childproof/launcher"
	"github.com/childproof/childproof/outcome"
	"github.com/childproof/childproof/spec"
	"github.com/childproof/childproof/verify"
)

// Supervision says how Supervise restarts, reports and stops. The zero
// value restarts as the group was started, reports nothing and, once
// ctx is done, stops every launch with each one's own stop grace. It is
// plain data, safe for concurrent use while no one changes it.
type Supervision struct {
	// Restart starts launch l again, its n-th restart (1, 2, …), and
	// returns it once verified; Supervise records the restart on it
	// (Launch.NoteRestart) and puts it in its launch's place (Replace).
	// A restart is not interrupted by ctx: once it is verified, ctx's
	// end stops it as any other launch. An error ends the supervision:
	// the group is stopped and Supervise returns a *RestartError.
	// nil: with Options when set, else as the group was started —
	// Options.Up's (and Up's) options with Command "restart" (a round
	// of its own), or UpWith's Starter (a group made by Of has none:
	// its restarts fail).
	Restart func(ctx context.Context, l *spec.Launch, n int) (*launcher.Launch, error)

	// Options, when set and Restart is nil, restarts a launch with
	// launcher.Start and the options Options returns for it, Command
	// set to "restart" — the restart of a group made by Of (the
	// childproof command's run gives the options of its first start).
	Options func(l *spec.Launch) launcher.Options

	// Event, when set, is called with each Event, in order, from the
	// goroutine that called Supervise; nil: nothing is reported.
	Event func(Event)

	// Cancel, when set, is called once ctx is done while a launch of the
	// group runs (or once a restart under way is verified): it stops
	// them its own way — the childproof command's run forwards the
	// caller's SIGINT to the worker and escalates on its own — and
	// Supervise then restarts nothing and waits for every launch to
	// exit. Their exit statuses count as if they had exited on their
	// own: a non-zero one is Supervise's *ExitError. nil: Supervise
	// stops every launch itself once ctx is done, in reverse start
	// order (each SIGTERM, then SIGKILL after WaitDelay), and those
	// exits are no failure.
	Cancel func()

	// WaitDelay bounds how long each launch has to exit after SIGTERM
	// whenever Supervise stops the group (ctx done with no Cancel, or a
	// launch that failed), before it is SIGKILLed: the launches are
	// stopped one after the other, in reverse start order, each with a
	// WaitDelay of its own. Zero: each launch's Options.StopGrace, else
	// launcher.DefaultStopGrace.
	WaitDelay time.Duration
}

// EventKind is what happened, in an Event.
type EventKind int

const (
	// EventExited: a launch's worker exited with Code and nothing
	// restarts it, after Restart restarts; GaveUp when its restart
	// policy would have restarted it but its max is reached.
	EventExited EventKind = iota + 1
	// EventRestarting: a launch's worker exited with Code and its
	// restart policy (spec.Restart.Next) starts it again — restart
	// number Restart of Max — after Delay.
	EventRestarting
	// EventStopping: Supervise stops every launch of the group, in
	// reverse start order; Err says why (ctx's cause, an *ExitError, a
	// *RestartError).
	EventStopping
	// EventAdopted: Options.Up left a launch as it is: it already runs
	// from the same spec and verifies now (Running) — its worker's Pid,
	// and the verification's Report.
	EventAdopted
	// EventStarting: Options.Up starts a launch, once every launch it
	// depends on (DependsOn) is verified.
	EventStarting
	// EventStarted: the start of a launch returned it verified (Launch,
	// its worker's Pid).
	EventStarted
	// EventStartFailed: the start of a launch failed with Err; Up stops
	// the Started launches it started before it, in reverse order.
	EventStartFailed
	// EventRestarted: restart number Restart of a launch is verified
	// (Launch, its worker's Pid), recorded and in its place in the
	// group.
	EventRestarted
	// EventRestartFailed: restart number Restart of a launch failed
	// with Err; Supervise stops the group (EventStopping follows).
	EventRestartFailed
)

// Event is something Options.Up or Supervise did or saw, for the
// caller to show. Each field is set only for the kinds it names; zero
// otherwise. It is plain data, safe for concurrent use while no one changes
// it.
type Event struct {
	Kind EventKind
	// Name is the launch's name (empty for EventStopping).
	Name string
	// Code is the worker's exit status (EventExited, EventRestarting).
	Code int
	// Restart is the number of the coming restart (EventRestarting), of
	// the restart made (EventRestarted, EventRestartFailed), or of the
	// restarts made before (EventExited); Max is the restart policy's
	// max (spec.Restart.EffectiveMax; EventExited, EventRestarting).
	Restart, Max int
	// Delay is the backoff before the restart (EventRestarting).
	Delay time.Duration
	// GaveUp says the restart policy is exhausted (EventExited).
	GaveUp bool
	// Err is why the group is stopped (EventStopping), or the error of
	// the start or restart (EventStartFailed, EventRestartFailed:
	// launcher.Start's, a *launcher.Error when it launched, or
	// Supervision.Restart's).
	Err error
	// DependsOn names the launches a starting launch depends on, all
	// verified (EventStarting; spec.Launch.DependsOn).
	DependsOn []string
	// Pid is the worker's pid (EventAdopted, EventStarted,
	// EventRestarted).
	Pid int
	// Report is the verification of the launch left as it is
	// (EventAdopted), masked as Running masks it.
	Report *verify.Report
	// Launch is the launch started (EventStarted) or restarted
	// (EventRestarted), verified; its Report is its verification.
	Launch *launcher.Launch
	// Started is how many launches Options.Up started before the one
	// that failed, and now stops again (EventStartFailed).
	Started int
}

// ExitError is a launch whose worker exited with a non-zero status that
// nothing restarted: Supervise's result when it was the first failure. It
// is plain data, safe for concurrent use while no one changes it.
type ExitError struct {
	Name     string
	Code     int
	Restarts int // restarts made before it
}

func (e *ExitError) Error() string {
	return fmt.Sprintf("group: %s exited with status %d", e.Name, e.Code)
}

// Unwrap is the worker's status as an outcome.Status: a command that
// ends with an *ExitError exits with it (outcome.ExitCode).
func (e *ExitError) Unwrap() error { return outcome.Status(e.Code) }

// RestartError is a restart that failed: restart N of launch Name, and
// the Restart function's error. It is plain data, safe for concurrent use
// while no one changes it.
type RestartError struct {
	Name string
	N    int
	Err  error
}

func (e *RestartError) Error() string {
	return fmt.Sprintf("group: restart %d of %s: %v", e.N, e.Name, e.Err)
}

func (e *RestartError) Unwrap() error { return e.Err }

// supervised is one launch of a group under supervision.
type supervised struct {
	la       *launcher.Launch
	restarts int
	code     int         // the last exit status, while a restart waits
	timer    *time.Timer // a restart's backoff, while it waits
}

type exited struct {
	m    *supervised
	code int
}

// Supervise supervises the group's launches until every one has exited
// and none is to be restarted. A launch whose worker exits is restarted
// as its restart block says (spec.Restart.Next: the policy, its max
// and backoff), each restart verified like the first start and recorded
// (Launch.NoteRestart); one that is not restarted is recorded with its
// exit status (State.NoteExit). The first failure — a worker that exited
// non-zero and is not restarted (*ExitError), or a restart that failed
// (*RestartError) — stops the group, in reverse start order, and is what
// Supervise returns; it returns nil when every launch exited with 0 or
// was stopped because ctx was done (see Supervision.Cancel). Once ctx is
// done nothing is restarted. Supervise returns only once every launch's
// worker is reaped.
func (g *Group) Supervise(ctx context.Context, s Supervision) error {
	restart := s.Restart
	switch {
	case restart != nil:
	case s.Options != nil:
		restart = restartWith(s.Options)
	default:
		restart = func(ctx context.Context, l *spec.Launch, n int) (*launcher.Launch, error) {
			if g.restart == nil {
				return nil, errors.New("no Supervision.Restart to restart it with")
			}
			la, err := g.restart(ctx, l, n)
			if err == nil && la == nil {
				err = errors.New("the starter left it as it is")
			}
			return la, err
		}
	}
	emit := func(e Event) {
		if s.Event != nil {
			s.Event(e)
		}
	}
	launches := g.Launches()
	exits := make(chan exited, len(launches))
	due := make(chan *supervised, len(launches))
	watch := func(m *supervised) {
		la := m.la
		go func() { exits <- exited{m: m, code: la.Wait().ExitCode()} }()
	}
	members := make([]*supervised, len(launches))
	for i, la := range launches {
		members[i] = &supervised{la: la}
		watch(members[i])
	}
	running, waiting := len(members), 0
	stopping := false // Supervise stops the group: the exits are its own doing
	var result error
	fail := func(err error) {
		if result == nil {
			result = err
		}
	}
	// drop forgets the restarts that wait; with final, their exit
	// statuses count as the launches' last.
	drop := func(final bool) {
		for _, m := range members {
			if m.timer == nil {
				continue
			}
			m.timer.Stop()
			m.timer = nil
			waiting--
			if final && m.code != 0 {
				fail(&ExitError{Name: m.la.Spec.Name, Code: m.code, Restarts: m.restarts})
			}
		}
	}
	stop := func(why error) {
		if stopping {
			return
		}
		stopping = true
		drop(false)
		emit(Event{Kind: EventStopping, Err: why})
		g.down(context.WithoutCancel(ctx), s.WaitDelay)
	}
	done := ctx.Done()
	for running > 0 || waiting > 0 {
		select {
		case <-done:
			done = nil
			if s.Cancel == nil {
				stop(context.Cause(ctx))
				continue
			}
			drop(true)
			if running > 0 {
				s.Cancel()
			}
		case m := <-due:
			if m.timer == nil || ctx.Err() != nil {
				continue // dropped after it fired, or about to be
			}
			m.timer = nil
			waiting--
			l, n := m.la.Spec, m.restarts+1
			la, err := restart(context.WithoutCancel(ctx), l, n)
			if err != nil {
				emit(Event{Kind: EventRestartFailed, Name: l.Name, Restart: n, Err: err})
				err = &RestartError{Name: l.Name, N: n, Err: err}
				fail(err)
				stop(err)
				continue
			}
			la.NoteRestart(n, m.code)
			g.Replace(m.la, la)
			m.la, m.restarts = la, n
			running++
			watch(m)
			emit(Event{Kind: EventRestarted, Name: l.Name, Restart: n, Pid: la.Pid(), Launch: la})
		case e := <-exits:
			running--
			if stopping {
				continue
			}
			m, l := e.m, e.m.la.Spec
			max := l.Restart.EffectiveMax()
			if d, again := l.Restart.Next(e.code, m.restarts); again && ctx.Err() == nil {
				emit(Event{Kind: EventRestarting, Name: l.Name, Code: e.code, Restart: m.restarts + 1, Max: max, Delay: d})
				m.code = e.code
				m.timer = time.AfterFunc(d, func() { due <- m })
				waiting++
				continue
			}
			if m.la.State != nil {
				m.la.State.NoteExit(l.Name, e.code)
			}
			gaveUp := l.Restart.EffectivePolicy() != spec.RestartNever && m.restarts >= max
			emit(Event{Kind: EventExited, Name: l.Name, Code: e.code, Restart: m.restarts, Max: max, GaveUp: gaveUp})
			if e.code != 0 {
				err := &ExitError{Name: l.Name, Code: e.code, Restarts: m.restarts}
				fail(err)
				stop(err)
			}
		}
	}
	return result
}
