package group

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/childproof/childproof/launcher"
	"github.com/childproof/childproof/outcome"
	"github.com/childproof/childproof/spec"
)

// Group is launches started together, in start order. A Group is safe for
// concurrent use. Supervise restarts what exits, so end it by its context,
// not by Down.
type Group struct {
	mu       sync.Mutex
	launches []*launcher.Launch
	adopted  []string
	// restart starts a launch again for Supervise when its Supervision
	// names no Restart and no Options: Options.Up's options with Command
	// "restart", or UpWith's Starter.
	restart restarter
}

// restarter starts launch l again, its n-th restart.
type restarter func(ctx context.Context, l *spec.Launch, n int) (*launcher.Launch, error)

// restartWith restarts a launch with launcher.Start and the options
// options gives it (nil: the zero Options), Command "restart": a round
// of its own, with the same overrides and no delta.
func restartWith(options func(*spec.Launch) launcher.Options) restarter {
	return func(ctx context.Context, l *spec.Launch, _ int) (*launcher.Launch, error) {
		var o launcher.Options
		if options != nil {
			o = options(l)
		}
		o.Command = launcher.CommandRestart
		return launcher.Start(ctx, l, o)
	}
}

// Up starts launches in Order, each with the Options opts gives it (nil:
// the zero Options), and returns once every one is verified. A launch
// starts only after every launch it depends on is verified. When one
// fails, Up stops those it started, in reverse order, and returns the
// launch's error (a *launcher.Error) wrapped with its name. It is
// Options{Launch: opts}.Up.
func Up(ctx context.Context, launches []*spec.Launch, opts func(*spec.Launch) launcher.Options) (*Group, error) {
	return Options{Launch: opts}.Up(ctx, launches)
}

// Options is how Options.Up starts a group: what Up does, and what the
// childproof command's up does besides — leave as it is a launch that
// already runs (Adopt) and say what it does (Event). The zero Options
// starts every launch with the zero launcher.Options and says nothing. It
// is plain data, safe for concurrent use while no one changes it.
type Options struct {
	// Launch returns launch l's launcher.Options. It is called for l's
	// start and again for each of its restarts under Supervise (which
	// sets Command "restart": a round of its own). nil: the zero
	// Options.
	Launch func(l *spec.Launch) launcher.Options

	// Adopt, when set, leaves a launch that already runs from the same
	// spec file and verifies (Running, with Adopt's fields) as it is:
	// Up does not start it, and it is not in the group (Down does not
	// stop it, Supervise does not watch it); Group.Adopted names it.
	// nil, or a nil State: every launch is started.
	Adopt *Adopt

	// Event, when set, is called with each Event of the start, in order,
	// from the goroutine that called Up: EventAdopted for a launch left
	// as it is; else EventStarting, and once launcher.Start returned,
	// EventStarted or EventStartFailed (before Up stops what it
	// started). nil: nothing is reported.
	Event func(Event)
}

// Adopt says how Options.Up finds the launches that already run: the
// arguments Running is given for each launch. It is plain data, safe for
// concurrent use while no one changes it.
type Adopt struct {
	// State is the state directory holding the launches' records.
	State *launcher.State
	// SpecHash is the hash of the spec file the launches come from
	// (spec.File.Hash); a launch recorded from another version of it,
	// or with no hash, is not adopted.
	SpecHash string
	// ShowValues shows environment values in an adopted launch's report
	// (EventAdopted) instead of keyed digests, as verify does.
	ShowValues bool
}

// Up starts launches in Order as the package's Up does, each with the
// launcher.Options o.Launch gives it, except those o.Adopt finds
// running, and says what it does to o.Event. When a start fails, Up
// stops the launches it started, in reverse order, and returns the
// launch's error wrapped in an *Error (Started counts only the launches
// it started, not those adopted). The group's restarts (Supervise with
// no Restart) start a launch with o.Launch's options, Command "restart".
func (o Options) Up(ctx context.Context, launches []*spec.Launch) (*Group, error) {
	emit := func(e Event) {
		if o.Event != nil {
			o.Event(e)
		}
	}
	options := func(l *spec.Launch) launcher.Options {
		if o.Launch == nil {
			return launcher.Options{}
		}
		return o.Launch(l)
	}
	var adopted []string
	started := 0
	var st *launcher.State
	if o.Adopt != nil {
		st = o.Adopt.State
	}
	byName := map[string]*spec.Launch{}
	for _, l := range launches {
		byName[l.Name] = l
	}
	g, err := UpWith(ctx, launches, func(ctx context.Context, l *spec.Launch) (*launcher.Launch, error) {
		if gone := stoppedMeanwhile(st, byName, l.DependsOn); len(gone) > 0 {
			// A concurrent down or stop ended what this launch needs.
			err := &StoppedError{Names: gone, Before: l.Name}
			emit(Event{Kind: EventStartFailed, Name: l.Name, Started: started, Err: err})
			return nil, err
		}
		if a := o.Adopt; a != nil && a.State != nil {
			if r, ok := Running(ctx, a.State, l, a.SpecHash, a.ShowValues); ok {
				// Not the group's to supervise or stop: Up did not start it.
				adopted = append(adopted, l.Name)
				emit(Event{Kind: EventAdopted, Name: l.Name, Pid: r.Worker.Pid, Report: r})
				return nil, nil
			}
		}
		emit(Event{Kind: EventStarting, Name: l.Name, DependsOn: l.DependsOn})
		la, err := launcher.Start(ctx, l, options(l))
		if err != nil {
			emit(Event{Kind: EventStartFailed, Name: l.Name, Started: started, Err: err})
			return nil, err
		}
		started++
		emit(Event{Kind: EventStarted, Name: l.Name, Pid: la.Pid(), Launch: la})
		return la, nil
	})
	if g != nil {
		g.adopted = adopted
		g.restart = restartWith(options)
	}
	if err == nil && g != nil {
		// Every launch verified once; one a concurrent down or stop
		// ended since does not run: up must not say it does.
		var names []string
		for _, la := range g.Launches() {
			names = append(names, la.Spec.Name)
		}
		if gone := stoppedMeanwhile(st, byName, append(names, adopted...)); len(gone) > 0 {
			return g, &StoppedError{Names: gone}
		}
	}
	return g, err
}

// stoppedMeanwhile returns those of names (launches of byName) that st
// shows not running now; a oneshot, done once it exited, never counts. Nil
// without a State.
func stoppedMeanwhile(st *launcher.State, byName map[string]*spec.Launch, names []string) []string {
	if st == nil {
		return nil
	}
	var check []string
	for _, n := range names {
		if l := byName[n]; l == nil || !l.Oneshot {
			check = append(check, n)
		}
	}
	return NotRunning(st, check...)
}

// StoppedError is Up's outcome when launches it verified were stopped
// while it ran (a concurrent down or stop): Before names the launch not
// started because a launch it depends on was ("": all were started, and
// Names were stopped since). Its outcome is outcome.Exited (exit 5).
type StoppedError struct {
	Names  []string
	Before string
}

func (e *StoppedError) Error() string {
	was := "was"
	if len(e.Names) > 1 {
		was = "were"
	}
	if e.Before != "" {
		return fmt.Sprintf("%s not started: %s, which it depends on, %s stopped while up ran (a concurrent down or stop)", e.Before, strings.Join(e.Names, ", "), was)
	}
	return fmt.Sprintf("%s %s verified, then stopped while up ran (a concurrent down or stop): not running", strings.Join(e.Names, ", "), was)
}

// OutcomeKind makes a StoppedError an outcome.Classified: exit 5.
func (e *StoppedError) OutcomeKind() outcome.Kind { return outcome.Exited }

// A Starter starts one launch for UpWith and returns it once verified.
// It returns nil and no error to leave l as it is — a launch already
// running that this group did not start and Down does not stop.
type Starter func(ctx context.Context, l *spec.Launch) (*launcher.Launch, error)

// UpWith is Up with start starting each launch, in Order; what start
// reports (progress, adoption) is its own. When start fails, UpWith
// stops the launches start returned so far, in reverse order, and
// returns start's error wrapped in an *Error. A oneshot launch has run
// to completion when start returns it: its dependents start only after
// it exited 0; another status fails UpWith as a start does (an
// *ExitError with it). It is not one of the group's launches: there is
// nothing left of it to supervise or stop.
func UpWith(ctx context.Context, launches []*spec.Launch, start Starter) (*Group, error) {
	order, err := Order(launches)
	if err != nil {
		return nil, err
	}
	g := &Group{restart: func(ctx context.Context, l *spec.Launch, _ int) (*launcher.Launch, error) { return start(ctx, l) }}
	for _, l := range order {
		la, err := start(ctx, l)
		if err == nil && la != nil && l.Oneshot {
			if code := la.Wait().ExitCode(); code != 0 {
				err = &ExitError{Name: l.Name, Code: code}
			}
			la = nil
		}
		if err != nil {
			g.Down(context.WithoutCancel(ctx))
			return nil, &Error{Name: l.Name, Started: len(g.launches), Err: err}
		}
		if la != nil {
			g.launches = append(g.launches, la)
		}
	}
	return g, nil
}

// Of is a group of launches already started, in start order — to
// Supervise or Down launches started one by one. It has no starter: a
// launch with a restart policy needs Supervision.Restart.
func Of(launches ...*launcher.Launch) *Group {
	return &Group{launches: slices.Clone(launches)}
}

// Error is the failure of Up: which launch failed, how many it had
// started (and stopped again), and the launch's error. It is plain data,
// safe for concurrent use while no one changes it.
type Error struct {
	Name    string
	Started int
	Err     error
}

func (e *Error) Error() string {
	if e.Started == 0 {
		return fmt.Sprintf("group: %s: %v", e.Name, e.Err)
	}
	what := fmt.Sprintf("the %d launches started before it were", e.Started)
	if e.Started == 1 {
		what = "the launch started before it was"
	}
	return fmt.Sprintf("group: %s: %v (%s stopped, in reverse order)", e.Name, e.Err, what)
}

func (e *Error) Unwrap() error { return e.Err }

// Launches returns the group's launches in start order.
func (g *Group) Launches() []*launcher.Launch {
	g.mu.Lock()
	defer g.mu.Unlock()
	return slices.Clone(g.launches)
}

// Adopted names the launches Options.Up left as it found them (its
// Adopt: already running from the same spec and verified), in start
// order; nil for a group made otherwise.
func (g *Group) Adopted() []string {
	g.mu.Lock()
	defer g.mu.Unlock()
	return slices.Clone(g.adopted)
}

// Launch returns the launch called name (nil when there is none).
func (g *Group) Launch(name string) *launcher.Launch {
	g.mu.Lock()
	defer g.mu.Unlock()
	for _, la := range g.launches {
		if la.Spec.Name == name {
			return la
		}
	}
	return nil
}

// Replace puts next in old's place (a restart of old's launch): Down
// stops next instead, at old's position. It reports whether old was in
// the group.
func (g *Group) Replace(old, next *launcher.Launch) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	i := slices.Index(g.launches, old)
	if i < 0 {
		return false
	}
	g.launches[i] = next
	return true
}

// Signal sends sig to every launch of the group whose launched process
// has not exited (Launch.Signal: its process group, never the caller).
func (g *Group) Signal(sig syscall.Signal) {
	for _, la := range g.Launches() {
		select {
		case <-la.Done():
		default:
			la.Signal(sig)
		}
	}
}

// Down stops the group's launches in reverse start order, each with
// Launch.Stop(ctx), every one returned only once its worker is reaped;
// it returns what each stop did, in that order. Safe to call twice.
func (g *Group) Down(ctx context.Context) ([]*launcher.StopResult, error) {
	return g.down(ctx, 0)
}

// down is Down with each launch's SIGKILL delay: within, when it is not
// zero (a deadline of its own for each launch, so that the last one is
// given as long as the first); zero: ctx's deadline, else the launch's
// own (Options.StopGrace, else launcher.DefaultStopGrace).
func (g *Group) down(ctx context.Context, within time.Duration) ([]*launcher.StopResult, error) {
	var res []*launcher.StopResult
	var errs []error
	for _, la := range slices.Backward(g.Launches()) {
		sctx, cancel := ctx, context.CancelFunc(func() {})
		if within > 0 {
			sctx, cancel = context.WithTimeout(ctx, within)
		}
		r, err := la.Stop(sctx)
		cancel()
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", la.Spec.Name, err))
		}
		res = append(res, r)
	}
	return res, errors.Join(errs...)
}
