package group

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/childproof/childproof/launcher"
	"github.com/childproof/childproof/schema"
)

// Group is launches started together, in start order.
type Group struct {
	launches []*launcher.Launch
}

// Up starts launches in Order, each with the Options opts gives it (nil:
// the zero Options), and returns once every one is verified. A launch
// starts only after every launch it depends on is verified. When one
// fails, Up stops those it started, in reverse order, and returns the
// launch's error (a *launcher.Error) wrapped with its name.
func Up(ctx context.Context, launches []*schema.Launch, opts func(*schema.Launch) launcher.Options) (*Group, error) {
	return UpWith(ctx, launches, func(ctx context.Context, l *schema.Launch) (*launcher.Launch, error) {
		var o launcher.Options
		if opts != nil {
			o = opts(l)
		}
		return launcher.Start(ctx, l, o)
	})
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
	g := &Group{}
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
func (g *Group) Launches() []*launcher.Launch { return slices.Clone(g.launches) }

// Launch returns the launch called name (nil when there is none).
func (g *Group) Launch(name string) *launcher.Launch {
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
	i := slices.Index(g.launches, old)
	if i < 0 {
		return false
	}
	g.launches[i] = next
	return true
}

// Down stops the group's launches in reverse start order, each with
// Launch.Stop(ctx), every one returned only once its worker is reaped;
// it returns what each stop did, in that order. Safe to call twice.
func (g *Group) Down(ctx context.Context) ([]*launcher.StopResult, error) {
	var res []*launcher.StopResult
	var errs []error
	for _, la := range slices.Backward(g.launches) {
		r, err := la.Stop(ctx)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", la.Spec.Name, err))
		}
		res = append(res, r)
	}
	return res, errors.Join(errs...)
}
