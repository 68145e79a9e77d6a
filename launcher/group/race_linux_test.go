package group_test

import (
	"context"
	"errors"
	"os"
	"testing"
	"time"

	"github.com/childproof/childproof/launcher"
	"github.com/childproof/childproof/launcher/group"
	"github.com/childproof/childproof/launcher/statedir"
	"github.com/childproof/childproof/outcome"
	"github.com/childproof/childproof/proc"
	"github.com/childproof/childproof/schema"
	"github.com/childproof/childproof/verify"
)

// stopWhen is a group.Options whose Event stops launch victim (as a
// concurrent down would) when launch at reaches kind.
func stopWhen(t *testing.T, dir string, kind group.EventKind, at, victim string) group.Options {
	st := openState(t, dir)
	return group.Options{
		Launch: func(*schema.Launch) launcher.Options { return detached(dir) },
		Adopt:  &group.Adopt{State: st},
		Event: func(e group.Event) {
			if e.Kind == kind && e.Name == at {
				if _, _, err := launcher.StopLaunch(context.Background(), proc.Default, st, victim, 5*time.Second, 5*time.Second, nil); err != nil {
					t.Errorf("stopping %s: %v", victim, err)
				}
			}
		},
	}
}

// TestUpRacingDownDependency: issue 40 item 11. db is stopped (a
// concurrent down) after it verified, before api starts: api is not
// started on a dependency that is gone, what up started is stopped, and
// the outcome is exit 5, naming db.
func TestUpRacingDownDependency(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	ls := chain(t)
	_, err := stopWhen(t, dir, group.EventStarted, "db", "db").Up(t.Context(), ls)
	var se *group.StoppedError
	if !errors.As(err, &se) || se.Before != "api" || len(se.Names) != 1 || se.Names[0] != "db" || outcome.Of(err) != outcome.Exited {
		t.Fatalf("err = %v (%T)", err, err)
	}
	st := openState(t, dir)
	for _, n := range []string{"api", "web"} {
		if rec, _ := st.Load(n); rec != nil {
			t.Errorf("%s started: %+v", n, rec)
		}
	}
}

// TestUpRacingDownAfterVerified: a launch of the group is stopped while up
// starts the next one (no dependency between them): Up does not say all
// run — it returns a StoppedError naming it, with the group of those it
// started.
func TestUpRacingDownAfterVerified(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	ls := chain(t)
	for _, l := range ls {
		l.DependsOn = nil
		l.Command = l.Command[:3] // no dependency check in the server
	}
	g, err := stopWhen(t, dir, group.EventStarting, "db", "web").Up(t.Context(), ls) // in order web, api, db
	if g != nil {
		t.Cleanup(func() { g.Down(context.Background()) })
	}
	var se *group.StoppedError
	if !errors.As(err, &se) || se.Before != "" || len(se.Names) != 1 || se.Names[0] != "web" {
		t.Fatalf("err = %v (%T)", err, err)
	}
	if g == nil || len(g.Launches()) != 3 {
		t.Fatalf("group %v", g)
	}
	if d := g.Launch("db"); d == nil || d.Worker().Check(proc.Default) != verify.Alive {
		t.Error("db does not run")
	}
}

// TestDownRecordedCatchesLateStart: a launch that was not running when
// down's turn came to it, and started before down ended (an up at the same
// time), is stopped too. The test holds db's lock, so that down's turn at
// db waits (as it waits for a launch in progress) until web has started.
func TestDownRecordedCatchesLateStart(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	ls := chain(t)
	web, api, db := ls[0], ls[1], ls[2]
	for _, l := range ls {
		l.DependsOn = nil
		l.Command = l.Command[:3]
	}
	opts := detached(dir)
	for _, l := range []*schema.Launch{db, api} {
		la, err := launcher.Start(t.Context(), l, opts)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { la.Stop(context.Background()) })
	}
	st := openState(t, dir)
	lock, err := os.OpenFile(statedir.Layout{Dir: dir}.Lock("db"), os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Close()
	if err := statedir.TryLock(lock); err != nil {
		t.Fatal(err)
	}
	var late *launcher.Launch
	started := make(chan struct{})
	go func() {
		defer close(started)
		defer lock.Close() // lets down's turn at db go on
		for {              // down has passed web once api is stopped: a state, not a time
			if rec, _ := st.Load("api"); rec != nil && rec.Stopped != nil {
				break
			}
			time.Sleep(5 * time.Millisecond)
		}
		late, _ = launcher.Start(context.Background(), web, opts)
	}()
	got := group.DownRecorded(t.Context(), proc.Default, st, []*schema.Launch{web, api, db}, 60*time.Second)
	<-started
	if late == nil {
		t.Fatal("web did not start")
	}
	t.Cleanup(func() { late.Stop(context.Background()) })
	for i, s := range got {
		if s.Skip != group.Ran || s.Err != nil || s.Result == nil || !s.Result.Signalled {
			t.Errorf("%d %s: %+v", i, s.Name, s)
		}
	}
	if late.Worker().Check(proc.Default) == verify.Alive {
		t.Error("web, started after down passed it, survived down")
	}
}
