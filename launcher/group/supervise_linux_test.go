package group_test

import (
	"context"
	"errors"
	"syscall"
	"testing"
	"time"

	"github.com/childproof/childproof/launcher"
	"github.com/childproof/childproof/launcher/group"
	"github.com/childproof/childproof/proc"
	"github.com/childproof/childproof/schema"
	"github.com/childproof/childproof/verify"
	"github.com/google/go-cmp/cmp"
)

// supervised starts ls with Up in a state dir of their own and runs
// Supervise(ctx, s) in the background: the events it reported and its
// result come on the channels returned (events only once it returned).
func supervised(t *testing.T, ctx context.Context, ls []*schema.Launch, s group.Supervision) (*group.Group, *launcher.State, <-chan []group.Event, <-chan error) {
	t.Helper()
	dir := t.TempDir()
	g, err := group.Up(t.Context(), ls, func(*schema.Launch) launcher.Options { return launcher.Options{StateDir: dir} })
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { g.Down(context.Background()) })
	st := openState(t, dir)
	var events []group.Event
	s.Event = func(e group.Event) { events = append(events, e) }
	evc, res := make(chan []group.Event, 1), make(chan error, 1)
	go func() {
		err := g.Supervise(ctx, s)
		evc <- events
		res <- err
	}()
	return g, st, evc, res
}

// waitRestart waits until the group holds a launch called name other
// than prev (Supervise put a verified restart in its place).
func waitRestart(t *testing.T, g *group.Group, name string, prev *launcher.Launch) *launcher.Launch {
	t.Helper()
	for end := time.Now().Add(30 * time.Second); time.Now().Before(end); time.Sleep(5 * time.Millisecond) {
		if la := g.Launch(name); la != prev {
			return la
		}
	}
	t.Fatalf("%s was not restarted", name)
	return nil
}

// evKind drops what an event's comparison cannot know in advance.
var evKind = cmp.Transformer("event", func(e group.Event) group.Event {
	e.Delay, e.Err, e.Pid, e.Launch, e.Report = 0, nil, 0, nil, nil
	return e
})

// TestSuperviseRestarts: a worker killed three times is restarted twice
// (on-failure, max 2) by Up's own options, each restart verified and
// recorded; the third exit gives up, stops the group — the launch it
// depends on too — and is Supervise's result.
func TestSuperviseRestarts(t *testing.T) {
	t.Parallel()
	ls := chain(t)[1:] // api, db
	api, db := ls[0], ls[1]
	api.Restart = schema.Restart{Policy: schema.RestartOnFailure, Max: 2, Backoff: 10 * time.Millisecond}
	g, st, evc, res := supervised(t, t.Context(), ls, group.Supervision{})
	la := g.Launch("api")
	for i := range 3 {
		la.Signal(syscall.SIGKILL)
		if i < 2 {
			la = waitRestart(t, g, "api", la)
			if !la.Report.Verified {
				t.Fatalf("restart %d not verified", i+1)
			}
		}
	}
	err := <-res
	var xe *group.ExitError
	if !errors.As(err, &xe) || *xe != (group.ExitError{Name: "api", Code: 137, Restarts: 2}) {
		t.Fatalf("Supervise: %v", err)
	}
	want := []group.Event{
		{Kind: group.EventRestarting, Name: "api", Code: 137, Restart: 1, Max: 2},
		{Kind: group.EventRestarted, Name: "api", Restart: 1},
		{Kind: group.EventRestarting, Name: "api", Code: 137, Restart: 2, Max: 2},
		{Kind: group.EventRestarted, Name: "api", Restart: 2},
		{Kind: group.EventExited, Name: "api", Code: 137, Restart: 2, Max: 2, GaveUp: true},
		{Kind: group.EventStopping},
	}
	events := <-evc
	if d := cmp.Diff(want, events, evKind); d != "" {
		t.Fatalf("events (-want +got):\n%s", d)
	}
	if events[0].Delay != 10*time.Millisecond || events[2].Delay != 20*time.Millisecond {
		t.Errorf("backoffs %s, %s; want 10ms, 20ms", events[0].Delay, events[2].Delay)
	}
	// Each restart's event carries the verified launch Supervise put in
	// api's place, its worker's pid, and its record shows the restart.
	for _, e := range []group.Event{events[1], events[3]} {
		if e.Launch == nil || !e.Launch.Report.Verified || e.Pid != e.Launch.Pid() || e.Launch.Spec.Name != "api" {
			t.Errorf("restart %d: launch %v, pid %d", e.Restart, e.Launch, e.Pid)
		}
	}
	if !errors.As(events[5].Err, &xe) {
		t.Errorf("stopping for %v, want api's exit", events[5].Err)
	}
	rec, err := st.Load(api.Name)
	if err != nil || rec.Restarts != 2 || rec.LastExit == nil || *rec.LastExit != 137 {
		t.Fatalf("api's record: %v %+v", err, rec)
	}
	if rec, _ := st.Load(db.Name); rec == nil || rec.Stopped == nil {
		t.Errorf("db was not stopped: %+v", rec)
	}
	if g.Launch("db").Worker().Check(proc.Default) == verify.Alive {
		t.Error("db survived api's failure")
	}
}

// TestSuperviseCancel: ctx's end stops every launch, nothing restarts
// (policy always), and the stop is no failure; the Restart given is
// used for no launch, and the event says ctx's cause.
func TestSuperviseCancel(t *testing.T) {
	t.Parallel()
	ls := chain(t)[1:]
	for _, l := range ls {
		l.Restart = schema.Restart{Policy: schema.RestartAlways}
	}
	ctx, cancel := context.WithCancelCause(context.Background())
	restarted := false
	g, st, evc, res := supervised(t, ctx, ls, group.Supervision{
		WaitDelay: 5 * time.Second,
		Restart: func(context.Context, *schema.Launch, int) (*launcher.Launch, error) {
			restarted = true
			return nil, errors.New("no restart expected")
		},
	})
	why := errors.New("interrupt")
	cancel(why)
	if err := <-res; err != nil {
		t.Fatalf("Supervise: %v", err)
	}
	events := <-evc
	if len(events) != 1 || events[0].Kind != group.EventStopping || events[0].Err != why {
		t.Fatalf("events: %+v", events)
	}
	if restarted {
		t.Error("Restart was called")
	}
	for _, la := range g.Launches() {
		if la.Worker().Check(proc.Default) == verify.Alive {
			t.Errorf("%s survived", la.Spec.Name)
		}
		if rec, _ := st.Load(la.Spec.Name); rec == nil || rec.Stopped == nil || rec.LastExit != nil {
			t.Errorf("%s's record: %+v", la.Spec.Name, rec)
		}
	}
}

// TestSuperviseCallerStops: with Cancel, ctx's end leaves the stopping
// to the caller (here SIGTERM to each launch); nothing restarts, and
// the worker's status is the result.
func TestSuperviseCallerStops(t *testing.T) {
	t.Parallel()
	ls := chain(t)[2:] // db
	ls[0].Restart = schema.Restart{Policy: schema.RestartAlways}
	ctx, cancel := context.WithCancel(context.Background())
	cancelled := make(chan struct{})
	g, st, evc, res := supervised(t, ctx, ls, group.Supervision{Cancel: func() { close(cancelled) }})
	cancel()
	<-cancelled
	g.Signal(syscall.SIGTERM)
	err := <-res
	var xe *group.ExitError
	if !errors.As(err, &xe) || xe.Code != 128+int(syscall.SIGTERM) {
		t.Fatalf("Supervise: %v", err)
	}
	want := []group.Event{
		{Kind: group.EventExited, Name: "db", Code: 143, Max: 5, GaveUp: false},
		{Kind: group.EventStopping},
	}
	if d := cmp.Diff(want, <-evc, evKind); d != "" {
		t.Errorf("events (-want +got):\n%s", d)
	}
	if rec, _ := st.Load("db"); rec == nil || rec.LastExit == nil || *rec.LastExit != 143 {
		t.Errorf("db's record: %+v", rec)
	}
}

// TestSuperviseRestartFails: a restart that fails ends the supervision
// with a *RestartError wrapping the Restart's error, and stops the rest
// of the group.
func TestSuperviseRestartFails(t *testing.T) {
	t.Parallel()
	ls := chain(t)[1:] // api, db
	ls[0].Restart = schema.Restart{Policy: schema.RestartAlways, Backoff: time.Millisecond}
	refused := errors.New("port 1 is held by a process this launch did not start")
	var asked []int
	g, _, evc, res := supervised(t, t.Context(), ls, group.Supervision{
		Restart: func(_ context.Context, l *schema.Launch, n int) (*launcher.Launch, error) {
			asked = append(asked, n)
			return nil, refused
		},
	})
	g.Launch("api").Signal(syscall.SIGKILL)
	err := <-res
	var re *group.RestartError
	if !errors.As(err, &re) || re.Name != "api" || re.N != 1 || !errors.Is(err, refused) {
		t.Fatalf("Supervise: %v", err)
	}
	events := <-evc
	want := []group.Event{
		{Kind: group.EventRestarting, Name: "api", Code: 137, Restart: 1, Max: 5},
		{Kind: group.EventRestartFailed, Name: "api", Restart: 1},
		{Kind: group.EventStopping},
	}
	if d := cmp.Diff(want, events, evKind); len(asked) != 1 || d != "" {
		t.Fatalf("restarts asked %v, events (-want +got):\n%s", asked, d)
	}
	if events[1].Err != refused || !errors.As(events[2].Err, &re) {
		t.Errorf("restart failed with %v, stopping for %v", events[1].Err, events[2].Err)
	}
	if g.Launch("db").Worker().Check(proc.Default) == verify.Alive {
		t.Error("db survived the failed restart")
	}
}
