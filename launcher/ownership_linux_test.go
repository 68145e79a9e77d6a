package launcher

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/childproof/childproof/launcher/proctree"
	"github.com/childproof/childproof/outcome"
	"github.com/childproof/childproof/proc"
	"github.com/childproof/childproof/schema"
	"github.com/childproof/childproof/verify"
	"golang.org/x/sys/unix"
)

// stubborn is a portless launch whose worker ignores SIGTERM.
func stubborn(name string) *schema.Launch {
	return &schema.Launch{
		Name:    name,
		Command: []string{"sh", "-c", "trap '' TERM; while :; do sleep 0.05; done"},
		Worker:  schema.Worker{Comm: "sh"},
		Ready:   schema.Ready{Timeout: 5 * time.Second},
	}
}

// waitFor polls cond every 5 ms until it holds or 10 s pass.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	end := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(end) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestStopHoldsLock: a stop waiting for a worker that ignores SIGTERM
// holds the launch's lock, so a run meanwhile is refused (exit 6) instead
// of starting a worker whose record the stop then marks stopped; once
// the stop is done, a run starts and its record says running.
func TestStopHoldsLock(t *testing.T) {
	st, err := OpenState(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	l := stubborn("race")
	first, err := Start(context.Background(), l, Options{State: st, Detach: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		StopLaunch(context.Background(), proc.Default, st, l.Name, 100*time.Millisecond, time.Second, nil)
	})
	type stopped struct {
		rec *Record
		res *StopResult
		err error
	}
	done := make(chan stopped, 1)
	go func() {
		rec, res, err := StopLaunch(context.Background(), proc.Default, st, l.Name, 700*time.Millisecond, time.Second, nil)
		done <- stopped{rec, res, err}
	}()
	waitFor(t, "the stop to take the lock", func() bool { return st.Launching(l.Name) })
	_, err = Start(context.Background(), l, Options{State: st, Detach: true})
	wantCode(t, err, outcome.Locked, "")
	s := <-done
	if s.err != nil {
		t.Fatal(s.err)
	}
	if !s.res.Killed || s.rec.Worker.Pid != first.Worker().Pid {
		t.Fatalf("stop: %+v of worker %d, want SIGKILL of %d", s.res, s.rec.Worker.Pid, first.Worker().Pid)
	}
	second, err := Start(context.Background(), l, Options{State: st, Detach: true})
	if err != nil {
		t.Fatal(err)
	}
	rec, err := st.Load(l.Name)
	if err != nil {
		t.Fatal(err)
	}
	if rec.Stopped != nil || !rec.Worker.Matches(second.Worker()) || rec.Worker.Check(proc.Default) != verify.Alive {
		t.Fatalf("the record after the second run: stopped=%v worker %+v, want the running second worker %+v", rec.Stopped, rec.Worker, second.Worker())
	}
}

// TestStopWaitsForRun: a stop while a run is under way waits for it and
// then stops what that run started (the record it marks is that
// launch's); with a wait shorter than the run it is refused (exit 6)
// and signals nothing.
func TestStopWaitsForRun(t *testing.T) {
	st, err := OpenState(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	l := stubborn("slow")
	// The worker appears only after 300 ms: the run holds the lock
	// meanwhile.
	l.Command = []string{"bash", "-c", "sleep 0.3; exec sh -c \"trap '' TERM; while :; do sleep 0.05; done\""}
	l.Worker = schema.Worker{Comm: "sh"}
	type started struct {
		la  *Launch
		err error
	}
	run := func() chan started {
		c := make(chan started, 1)
		go func() {
			la, err := Start(context.Background(), l, Options{State: st, Detach: true})
			c <- started{la, err}
		}()
		waitFor(t, "the run to take the lock", func() bool { return st.Launching(l.Name) })
		return c
	}
	c := run()
	_, _, err = StopLaunch(context.Background(), proc.Default, st, l.Name, 100*time.Millisecond, 10*time.Millisecond, nil)
	if !errors.Is(err, ErrLocked) {
		t.Fatalf("a stop that cannot wait: %v, want Locked", err)
	}
	s := <-c
	if s.err != nil {
		t.Fatal(s.err)
	}
	StopLaunch(context.Background(), proc.Default, st, l.Name, 100*time.Millisecond, time.Second, nil)
	c = run()
	rec, res, err := StopLaunch(context.Background(), proc.Default, st, l.Name, 100*time.Millisecond, 10*time.Second, nil)
	if err != nil {
		t.Fatal(err)
	}
	s = <-c
	if s.err != nil {
		t.Fatal(s.err)
	}
	if !rec.Worker.Matches(s.la.Worker()) || !res.Exited {
		t.Fatalf("the stop stopped %+v (%+v), want the run's worker %+v", rec.Worker, res, s.la.Worker())
	}
	if cur, err := st.Load(l.Name); err != nil || cur.Stopped == nil {
		t.Fatalf("record after the stop: %v, %v; want marked stopped", cur, err)
	}
}

// TestStopRecordUnwritable: when the record cannot be marked stopped (a
// full disk as root, a read-only records dir otherwise), the processes
// are still stopped and the result says why the record was not marked.
func TestStopRecordUnwritable(t *testing.T) {
	st, unwritable := unwritableState(t)
	l := stubborn("full")
	la, err := Start(context.Background(), l, Options{State: st, Detach: true})
	if err != nil {
		t.Fatal(err)
	}
	unwritable()
	_, res, err := StopLaunch(context.Background(), proc.Default, st, l.Name, 100*time.Millisecond, time.Second, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Exited || la.Worker().Check(proc.Default) == verify.Alive {
		t.Fatalf("the worker was not stopped: %+v", res)
	}
	if res.RecordErr == nil {
		t.Fatal("the record could not be written, but the result does not say so")
	}
	t.Logf("record error: %v", res.RecordErr)
}

// TestLaunchStopRecordUnwritable: Launch.Stop marks the record through
// State.MarkStopped, as the stop command does, and a record it cannot
// mark is its error (the *Error the command exits 2 for, Fix
// FixRecordUnmarked) and its result's RecordErr; the tree is stopped all
// the same, and a second Stop says the same.
func TestLaunchStopRecordUnwritable(t *testing.T) {
	st, unwritable := unwritableState(t)
	l := stubborn("full-fg")
	la, err := Start(context.Background(), l, Options{State: st, StopGrace: 100 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	worker := la.Worker()
	unwritable()
	res, err := la.Stop(context.Background())
	var e *Error
	if !errors.As(err, &e) || e.Outcome != outcome.Usage || e.Fix != FixRecordUnmarked || e.Name != l.Name || e.Path != st.Dir {
		t.Fatalf("Stop's error = %#v; want an *Error of outcome.Usage, FixRecordUnmarked, naming %q and %s", err, l.Name, st.Dir)
	}
	if res == nil || res.RecordErr == nil || !errors.Is(err, res.RecordErr) {
		t.Fatalf("Stop's result = %+v; want the write's failure as RecordErr, wrapped by the error", res)
	}
	if worker.Check(proc.Default) == verify.Alive {
		t.Fatalf("the worker was not stopped: %+v", res)
	}
	if _, again := la.Stop(context.Background()); again == nil || again.Error() != err.Error() {
		t.Fatalf("a second Stop says %v; want %v", again, err)
	}
	t.Logf("Stop: %v", err)
}

// unwritableState is a state dir whose records cannot be written once
// unwritable is called: a full tmpfs as root, a read-only records dir
// otherwise.
func unwritableState(t *testing.T) (st *State, unwritable func()) {
	t.Helper()
	dir := t.TempDir()
	full := os.Geteuid() == 0
	if full {
		if err := unix.Mount("tmpfs", dir, "tmpfs", 0, "size=256k,mode=0700"); err != nil {
			t.Skipf("cannot mount a small tmpfs: %v", err)
		}
		t.Cleanup(func() { unix.Unmount(dir, unix.MNT_DETACH) })
	}
	st, err := OpenState(dir)
	if err != nil {
		t.Fatal(err)
	}
	return st, func() {
		if full {
			// Fill the file system.
			f, _ := os.Create(filepath.Join(dir, "filler"))
			buf := make([]byte, 4096)
			for {
				if _, err := f.Write(buf); err != nil {
					break
				}
			}
			f.Close()
			return
		}
		os.Chmod(filepath.Join(dir, "records"), 0o500)
		t.Cleanup(func() { os.Chmod(filepath.Join(dir, "records"), 0o700) })
	}
}

// TestMarkerNotGroup: without a cgroup, a stranger that joined the
// launch's process group is not signalled by its stop, and a setsid
// daemon the launch left (outside the group) is.
func TestMarkerNotGroup(t *testing.T) {
	st, err := OpenState(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	l := &schema.Launch{
		Name:    "grp",
		Command: []string{"bash", "-c", "( setsid tail -f /dev/null </dev/null >/dev/null 2>&1 & ); exec sleep 600"},
		Worker:  schema.Worker{Comm: "sleep"},
		Ready:   schema.Ready{Timeout: 5 * time.Second},
	}
	la, err := Start(context.Background(), l, Options{State: st, Tracking: Tracking{NoCgroup: true}})
	if err != nil {
		t.Fatal(err)
	}
	defer la.Stop(context.Background())
	marker := la.tree.Marker
	var daemon []int
	waitFor(t, "the setsid daemon", func() bool {
		for _, pid := range proctree.MarkerPids(proc.Default, marker)[marker] {
			if c, _ := proc.Default.Comm(pid); c == "tail" {
				daemon = append(daemon[:0], pid)
				return true
			}
		}
		return false
	})
	stranger := exec.Command("sleep", "600")
	stranger.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pgid: la.tree.Pgid}
	if err := stranger.Start(); err != nil {
		t.Fatalf("joining the launch's process group: %v", err)
	}
	defer stranger.Process.Kill()
	if s, err := proc.Default.Stat(stranger.Process.Pid); err != nil || s.Pgrp != la.tree.Pgid {
		t.Fatalf("the stranger is not in the group: %+v %v", s, err)
	}
	if _, err := la.Stop(context.Background()); err != nil {
		t.Fatal(err)
	}
	if s, err := proc.Default.Stat(stranger.Process.Pid); err != nil || s.State == 'Z' {
		t.Error("the stranger in the process group was signalled")
	}
	waitFor(t, "the daemon to go", func() bool {
		s, err := proc.Default.Stat(daemon[0])
		return err != nil || s.State == 'Z'
	})
}
