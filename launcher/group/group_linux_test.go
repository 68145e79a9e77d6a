package group_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/childproof/childproof/internal/testsupport"
	"github.com/childproof/childproof/launcher"
	"github.com/childproof/childproof/launcher/group"
	"github.com/childproof/childproof/launcher/launchertest"
	"github.com/childproof/childproof/outcome"
	"github.com/childproof/childproof/proc"
	"github.com/childproof/childproof/schema"
	"github.com/childproof/childproof/verify"
)

// server is the tests' server and the relay of their detached launches:
// launcher/testdata/testserver, built once by TestMain. "serve ADDR
// [DEP_ADDR]" refuses to start unless DEP_ADDR answers (a dependency
// that is up); with SRV_IGNORE_INT=1 it ignores SIGINT.
var server string

func TestMain(m *testing.M) {
	launcher.RelayMain()
	prog, remove, err := testsupport.BuildProgram("../testdata/testserver", "CHILDPROOF_TESTSERVER")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	server = prog
	code := m.Run()
	remove()
	os.Exit(code)
}

// detached is the Options of a detached launch in state dir dir, its
// relay the test server.
func detached(dir string) launcher.Options {
	return launcher.Options{StateDir: dir, Detach: true, Relay: server}
}

// openState opens the state dir dir.
func openState(t *testing.T, dir string) *launcher.State {
	t.Helper()
	st, err := launcher.OpenState(dir)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// chain is db <- api <- web, given in the wrong order; api and web
// fail at once when the launch they depend on does not answer.
func chain(t *testing.T) []*schema.Launch {
	p := map[string]int{"db": launchertest.FreePort(t), "api": launchertest.FreePort(t), "web": launchertest.FreePort(t)}
	mk := func(name, dep string) *schema.Launch {
		argv := []string{server, "serve", `127.0.0.1:{{port}}`}
		l := &schema.Launch{Name: name, Command: argv, Ports: []schema.Port{{Name: "http", Number: p[name]}}}
		if dep != "" {
			l.Command = append(l.Command, fmt.Sprintf("127.0.0.1:%d", p[dep]))
			l.DependsOn = []string{dep}
		}
		return l
	}
	return []*schema.Launch{mk("web", "api"), mk("api", "db"), mk("db", "")}
}

func TestUpDown(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	g, err := group.Up(t.Context(), chain(t), func(*schema.Launch) launcher.Options { return launcher.Options{StateDir: dir} })
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, la := range g.Launches() {
		names = append(names, la.Spec.Name)
		if !la.Report.Verified {
			t.Errorf("%s not verified", la.Spec.Name)
		}
	}
	if strings.Join(names, ",") != "db,api,web" {
		t.Errorf("start order %v", names)
	}
	res, err := g.Down(context.Background())
	if err != nil || len(res) != 3 {
		t.Fatalf("down: %v, %d results", err, len(res))
	}
	for i, want := range []string{"web", "api", "db"} {
		if !strings.HasPrefix(res[i].Message, want+":") {
			t.Errorf("stop %d: %s, want %s first", i, res[i].Message, want)
		}
	}
	for _, la := range g.Launches() {
		if la.Worker().Check(proc.Default) == verify.Alive {
			t.Errorf("%s survived Down", la.Spec.Name)
		}
	}
}

// TestUpFailureStopsWhatStarted: api fails; db, started before it, is
// stopped again, and web never starts.
func TestUpFailureStopsWhatStarted(t *testing.T) {
	t.Parallel()
	ls := chain(t)
	ls[1].Command = []string{"sh", "-c", "echo 'api: no config'; exit 4"}
	dir := t.TempDir()
	_, err := group.Up(t.Context(), ls, func(l *schema.Launch) launcher.Options {
		return launcher.Options{StateDir: dir}
	})
	var ge *group.Error
	var le *launcher.Error
	if !errors.As(err, &ge) || ge.Name != "api" || ge.Started != 1 || !errors.As(err, &le) || le.Outcome != outcome.Exited {
		t.Fatalf("err = %v", err)
	}
	if !strings.Contains(err.Error(), "api: no config") || !strings.Contains(err.Error(), "the launch started before it was stopped") {
		t.Errorf("the error: %v", err)
	}
	st := openState(t, dir)
	rec, _ := st.Load("db")
	if rec == nil || rec.Stopped == nil {
		t.Errorf("db not stopped: %+v", rec)
	}
	if rec, _ := st.Load("web"); rec != nil {
		t.Errorf("web started: %+v", rec)
	}
}

func TestOrderErrors(t *testing.T) {
	a := &schema.Launch{Name: "a", Command: []string{"true"}, DependsOn: []string{"b"}}
	b := &schema.Launch{Name: "b", Command: []string{"true"}, DependsOn: []string{"a"}}
	_, err := group.Order([]*schema.Launch{a, b})
	var ce *group.CycleError
	if !errors.As(err, &ce) || !strings.Contains(err.Error(), "a DependsOn cycle") {
		t.Errorf("cycle: %v, want a *group.CycleError", err)
	}
	if _, err := group.Order([]*schema.Launch{a}); err == nil || !strings.Contains(err.Error(), `"b"`) {
		t.Errorf("unknown dependency: %v", err)
	}
	if _, err := group.Order([]*schema.Launch{b, b}); err == nil || !strings.Contains(err.Error(), "two launches") {
		t.Errorf("duplicate: %v", err)
	}
}

// TestUpWith: a Starter that leaves db as it is (adopted: started here
// by hand, not by the group) — the group holds api and web only, and
// Down stops those and never db. Replace swaps web for a restart of it.
func TestUpWith(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	ls := chain(t)
	opts := launcher.Options{StateDir: dir}
	db, err := launcher.Start(t.Context(), ls[2], opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Stop(context.Background()) })
	var asked []string
	g, err := group.UpWith(t.Context(), ls, func(ctx context.Context, l *schema.Launch) (*launcher.Launch, error) {
		asked = append(asked, l.Name)
		if l.Name == "db" {
			return nil, nil
		}
		return launcher.Start(ctx, l, opts)
	})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(asked, ",") != "db,api,web" || len(g.Launches()) != 2 || g.Launch("db") != nil {
		t.Fatalf("asked %v, group %d launches", asked, len(g.Launches()))
	}
	web := g.Launch("web")
	web.Stop(context.Background())
	again, err := launcher.Start(t.Context(), web.Spec, opts)
	if err != nil {
		t.Fatal(err)
	}
	if !g.Replace(web, again) || g.Replace(web, again) || g.Launch("web") != again {
		t.Fatal("Replace did not put the restart in web's place")
	}
	res, err := g.Down(context.Background())
	if err != nil || len(res) != 2 || !strings.HasPrefix(res[0].Message, "web:") || !strings.HasPrefix(res[1].Message, "api:") {
		t.Fatalf("down: %v, %v", err, res)
	}
	if again.Worker().Check(proc.Default) == verify.Alive {
		t.Error("the restarted web survived Down")
	}
	if db.Worker().Check(proc.Default) != verify.Alive {
		t.Error("Down stopped db, which the group did not start")
	}
}

// TestDownRecorded: down's stop of recorded launches — api is stopped,
// db (recorded from another spec file) is left alone, web (never
// started) has no record.
func TestDownRecorded(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	ls := chain(t)
	web, api, db := ls[0], ls[1], ls[2]
	db.SpecPath, api.SpecPath, web.SpecPath = "/other.hcl", "/stack.hcl", "/stack.hcl"
	opts := detached(dir)
	var las []*launcher.Launch
	for _, l := range []*schema.Launch{db, api} {
		la, err := launcher.Start(t.Context(), l, opts)
		if err != nil {
			t.Fatal(err)
		}
		las = append(las, la)
		t.Cleanup(func() { la.Stop(context.Background()) })
	}
	st := openState(t, dir)
	mine := *db
	mine.SpecPath = "/stack.hcl"
	got := group.DownRecorded(t.Context(), proc.Default, st, []*schema.Launch{web, api, &mine}, 5*time.Second)
	want := []group.Skip{group.NotRecorded, group.Ran, group.OtherSpec}
	if len(got) != 3 {
		t.Fatalf("%d results", len(got))
	}
	for i, s := range got {
		if s.Skip != want[i] {
			t.Errorf("%s: skip %v, want %v (err %v)", s.Name, s.Skip, want[i], s.Err)
		}
	}
	if r := got[1]; r.Err != nil || r.Result == nil || !r.Result.Exited {
		t.Errorf("api: %+v", r)
	}
	if got[2].Record == nil || got[2].Record.SpecPath != "/other.hcl" {
		t.Errorf("db: %+v", got[2])
	}
	if las[1].Worker().Check(proc.Default) == verify.Alive {
		t.Error("api survived")
	}
	if las[0].Worker().Check(proc.Default) != verify.Alive {
		t.Error("db, another spec's, was stopped")
	}
}

// TestRunning: a launch recorded from this very spec (same path, same
// hash) whose worker verifies is running; another hash, or a stopped
// launch, is not. NotRunning names an unrecorded launch, and db once it
// is stopped.
func TestRunning(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	db := chain(t)[2]
	db.SpecPath = "/stack.hcl"
	la, err := launcher.Start(t.Context(), db, launcher.Options{StateDir: dir, Detach: true, Relay: server, Provenance: launcher.Provenance{SpecHash: "h1"}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { la.Stop(context.Background()) })
	st := openState(t, dir)
	if r, ok := group.Running(t.Context(), st, db, "h1", false); !ok || r.Worker.Pid != la.Pid() {
		t.Fatalf("the same spec: %v %+v", ok, r)
	}
	if _, ok := group.Running(t.Context(), st, db, "h2", false); ok {
		t.Error("a changed spec counts as running")
	}
	if got := group.NotRunning(st, "nope", "db"); strings.Join(got, ",") != "nope" {
		t.Errorf("NotRunning while db runs: %v", got)
	}
	la.Stop(context.Background())
	if _, ok := group.Running(t.Context(), st, db, "h1", false); ok {
		t.Error("a stopped launch counts as running")
	}
	if got := group.NotRunning(st, "nope", "db"); strings.Join(got, ",") != "nope,db" {
		t.Errorf("NotRunning once db stopped: %v", got)
	}
}
