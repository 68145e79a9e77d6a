package group

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"syscall"
	"time"

	"github.com/childproof/childproof/launcher"
	"github.com/childproof/childproof/schema"
)

// Group is launches started together, in start order.
type Group struct {
	mu       sync.Mutex
	launches []*launcher.Launch
	// restart starts a launch again for Supervise when its Supervision
	// names no Restart: Up's options with Command "restart", or
	// UpWith's Starter.
	restart Starter
}

// Up starts launches in Order, each with the Options opts gives it (nil:
// the zero Options), and returns once every one is verified. A launch
// starts only after every launch it depends on is verified. When one
// fails, Up stops those it started, in reverse order, and returns the
// launch's error (a *launcher.Error) wrapped with its name.
func Up(ctx context.Context, launches []*schema.Launch, opts func(*schema.Launch) launcher.Options) (*Group, error) {
	options := func(l *schema.Launch) launcher.Options {
		if opts == nil {
			return launcher.Options{}
		}
		return opts(l)
	}
	g, err := UpWith(ctx, launches, func(ctx context.Context, l *schema.Launch) (*launcher.Launch, error) {
		return launcher.Start(ctx, l, options(l))
	})
	if g != nil {
		g.restart = func(ctx context.Context, l *schema.Launch) (*launcher.Launch, error) {
			o := options(l)
			o.Command = launcher.CommandRestart // a round of its own
			return launcher.Start(ctx, l, o)
		}
	}
	return g, err
}

// A Starter starts one launch for UpWith and returns it once verified.
// It returns nil and no error to leave l as it is — a launch already
// running that this group did not start and Down does not stop.
type Starter func(ctx context.Context, l *schema.Launch) (*launcher.Launch, error)

// UpWith is Up with start starting each launch, in Order; what start
// reports (progress, adoption) is its own. When start fails, UpWith
// stops the launches start returned so far, in reverse order, and
// returns start's error wrapped in an *Error.
func UpWith(ctx context.Context, launches []*schema.Launch, start Starter) (*Group, error) {
	order, err := Order(launches)
	if err != nil {
		return nil, err
	}
	g := &Group{restart: start}
	for _, l := range order {
		la, err := start(ctx, l)
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
// started (and stopped again), and the launch's error.
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
