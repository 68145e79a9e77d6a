package group_test

import (
	"context"
	"errors"
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/childproof/childproof/launcher"
	"github.com/childproof/childproof/launcher/group"
	"github.com/childproof/childproof/outcome"
	"github.com/childproof/childproof/proc"
	"github.com/childproof/childproof/schema"
	"github.com/childproof/childproof/verify"
	"github.com/google/go-cmp/cmp"
)

// TestOptionsUpAdopt: db already runs from this spec (same path and
// hash) and verifies: Options.Up leaves it as it is — an EventAdopted
// with its pid and report, not in the group, named by Adopted, and not
// stopped by Down — and starts api and web, each announced with what it
// depends on and reported verified. Each start asks Launch for its
// options once.
func TestOptionsUpAdopt(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	ls := chain(t)
	for _, l := range ls {
		l.SpecPath = "/stack.hcl"
	}
	opts := launcher.Options{StateDir: dir, Provenance: launcher.Provenance{SpecHash: "h1"}}
	db, err := launcher.Start(t.Context(), ls[2], opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Stop(context.Background()) })
	var events []group.Event
	var asked []string
	g, err := group.Options{
		Launch: func(l *schema.Launch) launcher.Options {
			asked = append(asked, l.Name)
			return opts
		},
		Adopt: &group.Adopt{State: openState(t, dir), SpecHash: "h1"},
		Event: func(e group.Event) { events = append(events, e) },
	}.Up(t.Context(), ls)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { g.Down(context.Background()) })
	want := []group.Event{
		{Kind: group.EventAdopted, Name: "db"},
		{Kind: group.EventStarting, Name: "api", DependsOn: []string{"db"}},
		{Kind: group.EventStarted, Name: "api"},
		{Kind: group.EventStarting, Name: "web", DependsOn: []string{"api"}},
		{Kind: group.EventStarted, Name: "web"},
	}
	if d := cmp.Diff(want, events, evKind); d != "" {
		t.Fatalf("events (-want +got):\n%s", d)
	}
	if e := events[0]; e.Pid != db.Pid() || e.Report == nil || !e.Report.Verified || e.Report.Worker.Pid != db.Pid() {
		t.Errorf("adopted: pid %d, report %+v; want db's worker %d", e.Pid, e.Report, db.Pid())
	}
	for _, e := range []group.Event{events[2], events[4]} {
		if la := g.Launch(e.Name); e.Launch != la || la == nil || e.Pid != la.Pid() || !la.Report.Verified {
			t.Errorf("%s started: launch %v pid %d, the group's %v", e.Name, e.Launch, e.Pid, la)
		}
	}
	if got := g.Adopted(); !slices.Equal(got, []string{"db"}) {
		t.Errorf("Adopted() = %v", got)
	}
	if !slices.Equal(asked, []string{"api", "web"}) || len(g.Launches()) != 2 || g.Launch("db") != nil {
		t.Fatalf("options asked for %v; the group holds %d launches", asked, len(g.Launches()))
	}
	if _, err := g.Down(context.Background()); err != nil {
		t.Fatal(err)
	}
	if db.Worker().Check(proc.Default) != verify.Alive {
		t.Error("Down stopped db, which Up adopted")
	}
	// Another hash: db is not adopted but started — and refused, its
	// port held by the db that runs (a failure with nothing to stop).
	events = nil
	_, err = group.Options{
		Launch: func(*schema.Launch) launcher.Options { return opts },
		Adopt:  &group.Adopt{State: openState(t, dir), SpecHash: "h2"},
		Event:  func(e group.Event) { events = append(events, e) },
	}.Up(t.Context(), ls)
	var ge *group.Error
	if !errors.As(err, &ge) || ge.Name != "db" || ge.Started != 0 {
		t.Fatalf("another hash: %v", err)
	}
	want = []group.Event{{Kind: group.EventStarting, Name: "db"}, {Kind: group.EventStartFailed, Name: "db"}}
	if d := cmp.Diff(want, events, evKind); d != "" {
		t.Errorf("another hash: events (-want +got):\n%s", d)
	}
	if s := events[1].String(); s != "" {
		t.Errorf("a first start that failed says %q, want nothing", s)
	}
}

// TestOptionsUpStartFailed: api fails to start after db started — an
// EventStartFailed with api's *launcher.Error and the one launch to stop
// again, said as up says it — and db is stopped; web never starts.
func TestOptionsUpStartFailed(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	ls := chain(t)
	ls[1].Command = []string{"sh", "-c", "echo 'api: no config'; exit 4"}
	var events []group.Event
	_, err := group.Options{
		Launch: func(*schema.Launch) launcher.Options { return launcher.Options{StateDir: dir} },
		Event:  func(e group.Event) { events = append(events, e) },
	}.Up(t.Context(), ls)
	var ge *group.Error
	if !errors.As(err, &ge) || ge.Name != "api" || ge.Started != 1 {
		t.Fatalf("Up: %v", err)
	}
	want := []group.Event{
		{Kind: group.EventStarting, Name: "db"},
		{Kind: group.EventStarted, Name: "db"},
		{Kind: group.EventStarting, Name: "api", DependsOn: []string{"db"}},
		{Kind: group.EventStartFailed, Name: "api", Started: 1},
	}
	if d := cmp.Diff(want, events, evKind); d != "" {
		t.Fatalf("events (-want +got):\n%s", d)
	}
	var le *launcher.Error
	if !errors.As(events[3].Err, &le) || le.Outcome != outcome.Exited {
		t.Errorf("api's error: %v", events[3].Err)
	}
	if got, want := events[3].String(), "api failed to start: stopping the 1 launch this up started, in reverse order"; got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
	if rec, _ := openState(t, dir).Load("db"); rec == nil || rec.Stopped == nil {
		t.Errorf("db not stopped: %+v", rec)
	}
}

// TestSuperviseOptions: a group made by Of restarts with
// Supervision.Options — asked again for each restart — as a round of
// its own (Command "restart"), and says it: EventRestarted with the
// verified launch.
func TestSuperviseOptions(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	db := chain(t)[2]
	db.Restart = schema.Restart{Policy: schema.RestartOnFailure, Max: 1, Backoff: time.Millisecond}
	opts := launcher.Options{StateDir: dir}
	la, err := launcher.Start(t.Context(), db, opts)
	if err != nil {
		t.Fatal(err)
	}
	g := group.Of(la)
	t.Cleanup(func() { g.Down(context.Background()) })
	asked := 0
	var events []group.Event
	res := make(chan error, 1)
	go func() {
		res <- g.Supervise(t.Context(), group.Supervision{
			Options: func(*schema.Launch) launcher.Options { asked++; return opts },
			Event:   func(e group.Event) { events = append(events, e) },
		})
	}()
	la.Signal(syscall.SIGKILL)
	again := waitRestart(t, g, "db", la)
	again.Signal(syscall.SIGKILL)
	var xe *group.ExitError
	if err := <-res; !errors.As(err, &xe) || xe.Restarts != 1 {
		t.Fatalf("Supervise: %v", err)
	}
	want := []group.Event{
		{Kind: group.EventRestarting, Name: "db", Code: 137, Restart: 1, Max: 1},
		{Kind: group.EventRestarted, Name: "db", Restart: 1},
		{Kind: group.EventExited, Name: "db", Code: 137, Restart: 1, Max: 1, GaveUp: true},
		{Kind: group.EventStopping},
	}
	if d := cmp.Diff(want, events, evKind); d != "" {
		t.Fatalf("events (-want +got):\n%s", d)
	}
	if e := events[1]; asked != 1 || e.Launch != again || e.Pid != again.Pid() {
		t.Errorf("options asked %d times; restarted %v pid %d, want %v", asked, e.Launch, e.Pid, again)
	}
	r, err := openState(t, dir).LoadRound("db", again.Round())
	if err != nil || r.Command != launcher.CommandRestart {
		t.Errorf("the restart's round: %v %+v", err, r)
	}
}
