package launcher

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/childproof/childproof/verify"
)

// TestShimWorker: a pyenv/asdf-style shim (a script named like the server
// that execs it in the same pid, here through env: two execs) selected by
// comm. The record holds the exe the worker has once verified, not the
// shim's; ps, verify and stop recognise it by pid, start time and pidfs
// inode (relaunch: launcher/relaunch's TestRelaunchShimWorker).
func TestShimWorker(t *testing.T) {
	f := newFixture(t)
	shims := t.TempDir()
	shim := filepath.Join(shims, "mock-srv")
	os.WriteFile(shim, []byte("#!/bin/bash\nexec /usr/bin/env "+filepath.Join(f.bin, "mock-srv")+" \"$@\"\n"), 0o755)
	l := f.spec("shim")
	l.Command = []string{shim, "helper", "serve", "127.0.0.1:" + strconv.Itoa(f.port)}
	la, err := Start(context.Background(), l, Options{State: f.state, Detach: true})
	if err != nil {
		t.Fatal(err)
	}
	rec := la.Record
	t.Cleanup(func() { StopRecord(context.Background(), procDefault, f.state, rec, 0) })
	self, _ := os.Executable()
	if rec.Worker.Exe == "/usr/bin/bash" || rec.Worker.Exe == "/usr/bin/env" || rec.Worker.Exe == "" {
		t.Errorf("recorded exe %q: the shim's, not the server's (%s)", rec.Worker.Exe, self)
	}
	if rec.Worker.Pid != la.Record.Root.Pid {
		t.Errorf("worker %d, root %d: the shim execs in the same pid", rec.Worker.Pid, rec.Root.Pid)
	}
	loaded, err := f.state.Load("shim")
	if err != nil {
		t.Fatal(err)
	}
	if live := loaded.Worker.Check(procDefault); live != verify.Alive {
		t.Fatalf("ps: the recorded worker is %s", live)
	}
	entries, _ := Census(procDefault, f.state, false)
	if len(entries) != 1 || entries[0].Status != "alive" {
		t.Errorf("census: %+v", entries)
	}
	res, err := StopRecord(context.Background(), procDefault, f.state, rec, 0)
	if err != nil || !res.Signalled || !res.Exited {
		t.Fatalf("stop: %+v %v", res, err)
	}
	noListener(t, f.port)
}

// TestExecFromThread: an execve from a thread other than the main one
// escapes the capture (threads are not traced); the launch still verifies
// on the live block, and the detach never stops the untraced process.
func TestExecFromThread(t *testing.T) {
	f := newFixture(t)
	l := f.spec("thread-exec")
	l.Command = []string{filepath.Join(f.bin, "mock-srv"), "helper", "thread-exec", "127.0.0.1:" + strconv.Itoa(f.port)}
	la, err := Start(context.Background(), l, Options{State: f.state, Detach: true})
	if err != nil {
		t.Fatal(err)
	}
	rec := la.Record
	t.Cleanup(func() { StopRecord(context.Background(), procDefault, f.state, rec, 0) })
	for range 20 {
		if s, err := procDefault.Stat(rec.Worker.Pid); err != nil || s.State == 'T' || s.State == 't' {
			t.Fatalf("worker state %q (%v): stopped by the detach", s.State, err)
		}
		time.Sleep(10 * time.Millisecond)
	}
	if r, err := la.Verify(context.Background()); err != nil || !r.Verified {
		t.Fatalf("verify: %v %+v", err, r)
	}
}
