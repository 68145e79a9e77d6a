package exectrace

import (
	"os"
	"os/exec"
	"runtime"
	"slices"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// TestTracerThreadReused: a tracer thread whose root was reaped waits
// for the next traced start, and a waiting thread traces the next start
// instead of a new one.
func TestTracerThreadReused(t *testing.T) {
	waiting := func() []int {
		idle.mu.Lock()
		defer idle.mu.Unlock()
		var tids []int
		for _, it := range idle.threads {
			tids = append(tids, it.tid)
		}
		return tids
	}
	trace := func() (tid int) {
		t.Helper()
		w, pid := traceTrue(t)
		if _, ok := w.Evidence(pid); !ok {
			t.Errorf("no capture of the root's exec")
		}
		return w.tracer
	}
	first := trace()
	for i := 0; first == os.Getpid() && i < 10; i++ {
		// The main thread never waits for a start.
		first = trace()
	}
	deadline := time.Now().Add(2 * idleTimeout)
	for !slices.Contains(waiting(), first) {
		if time.Now().After(deadline) {
			t.Fatalf("tracer thread %d does not wait for a start (waiting: %v)", first, waiting())
		}
		time.Sleep(time.Millisecond)
	}
	before := waiting()
	if second := trace(); !slices.Contains(before, second) {
		t.Errorf("the second start was traced by thread %d, not by a waiting one %v", second, before)
	}
}

// TestTracerNotMainThread: no start is traced from the process's main
// thread, which could never wait for the next one.
func TestTracerNotMainThread(t *testing.T) {
	for range 20 {
		if w, _ := traceTrue(t); w.tracer == os.Getpid() {
			t.Fatalf("a start was traced by the main thread")
		}
	}
}

// TestTracerNotParentThread: a start that lands on a thread with a child
// of its own (one that forked the watchdog) is traced from another one.
func TestTracerNotParentThread(t *testing.T) {
	type result struct {
		parent, tracer int
		err            error
	}
	got := make(chan result)
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		child := exec.Command("sleep", "30")
		if err := child.Start(); err != nil {
			got <- result{err: err}
			return
		}
		defer func() { child.Process.Kill(); child.Wait() }()
		cmd := exec.Command("true")
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		rootDone := make(chan struct{})
		j := newJob(cmd, false, func() { go func() { cmd.Wait(); close(rootDone) }() }, rootDone)
		traceThread(j, nil)
		err := <-j.errc
		if err == nil {
			<-rootDone
			j.w.Detach()
		}
		got <- result{parent: unix.Gettid(), tracer: j.w.tracer, err: err}
	}()
	r := <-got
	if r.err != nil {
		t.Fatal(r.err)
	}
	if r.tracer == r.parent {
		t.Errorf("the start was traced by thread %d, which has a child of its own", r.tracer)
	}
}

// traceTrue starts true(1) traced, in a process group of its own, waits
// for its reap and detaches: the tracer and the root's pid.
func traceTrue(t *testing.T) (*Tracer, int) {
	t.Helper()
	cmd := exec.Command("true")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	rootDone := make(chan struct{})
	w, err := Start(cmd, false, func() { go func() { cmd.Wait(); close(rootDone) }() }, rootDone)
	if err != nil {
		t.Fatal(err)
	}
	<-rootDone
	w.Detach()
	return w, cmd.Process.Pid
}
