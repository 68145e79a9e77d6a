package launcher

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"
)

// TestDetachForkBeforeExec: a launch script that forks before it execs
// the server (a command substitution through a pipe, as a pyenv/nvm shim
// or a settings reader does) is detached without the tracer waiting out
// its timeout for a child it lost track of (issue 37: 5 s in a third of
// runs). The state asserted is the detach's timeout branch never taken.
func TestDetachForkBeforeExec(t *testing.T) {
	f := newFixture(t)
	script := filepath.Join(t.TempDir(), "launch.sh")
	body := "#!/bin/bash\nx=$(echo a | cut -c1)\ny=$(echo \"$x\" | tr a b)\nexec " + filepath.Join(f.bin, "mock-srv") + " helper serve \"$1\"\n"
	if err := os.WriteFile(script, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
	runs := 50
	if testing.Short() {
		runs = 10
	}
	before := detachTimeouts.Load()
	var slowest time.Duration
	for i := range runs {
		l := f.spec("forkexec")
		l.Command = []string{script, "127.0.0.1:" + strconv.Itoa(f.port)}
		l.Ready.HTTP = ""
		start := time.Now()
		la, err := Start(context.Background(), l, Options{State: f.state, Detach: true})
		if err != nil {
			t.Fatalf("run %d: %v", i, err)
		}
		slowest = max(slowest, time.Since(start))
		if _, err := StopRecord(context.Background(), procDefault, f.state, la.Record, 0); err != nil {
			t.Fatalf("run %d: stop: %v", i, err)
		}
		if n := detachTimeouts.Load() - before; n > 0 {
			t.Fatalf("run %d: the detach waited out its %s timeout %d time(s)", i, detachTimeout, n)
		}
	}
	t.Logf("%d detached runs, slowest %s", runs, slowest)
}

// TestDetachLostTracee: an entry for a tracee the tracer will never hear
// from again (its fork event handled after its exit was consumed: a
// fresh entry for a pid that is gone) does not hold the detach until its
// timeout.
func TestDetachLostTracee(t *testing.T) {
	cmd := exec.Command("sleep", "30")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	rootDone := make(chan struct{})
	w, err := startWatched(cmd, false, func() { go func() { cmd.Wait(); close(rootDone) }() }, rootDone)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { cmd.Process.Kill(); <-rootDone }()
	// A pid above pid_max: never a process.
	w.mu.Lock()
	w.ts[1<<23] = &tracee{fresh: true}
	w.mu.Unlock()
	before := detachTimeouts.Load()
	w.detach()
	if n := detachTimeouts.Load() - before; n > 0 {
		t.Fatalf("the detach waited out its timeout for a lost tracee")
	}
	if s, err := procDefault.Stat(cmd.Process.Pid); err != nil || s.State == 't' || s.State == 'T' {
		t.Fatalf("root after the detach: %+v %v", s, err)
	}
}
