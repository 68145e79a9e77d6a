package launcher

import (
	"context"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/childproof/childproof/internal/pidfd"
	"github.com/childproof/childproof/verify"
	"golang.org/x/sys/unix"
)

// TestWaitFollowsRespawn: Launch.Wait of a supervisor (the launched
// root) that respawns its crashed worker does not end with the worker:
// the replacement, re-selected by the selector, is the worker (Pid,
// the record, Notify), judged by its own environment, and Wait returns
// the supervisor's own status once it gives up. A replacement started
// with another value is reported and recorded as diverged; the launch
// goes on.
func TestWaitFollowsRespawn(t *testing.T) {
	f := newFixture(t)
	l := f.spec("respawn")
	// Three workers, the third with MOCK_LLM_KEY changed; then exit 7.
	l.Command = []string{"sh", "-c", `n=1
while [ $n -le 3 ]; do
  if [ $n -eq 3 ]; then MOCK_LLM_KEY=changed "$0" serve "$1" & else "$0" serve "$1" & fi
  wait $!
  n=$((n+1))
done
exit 7`, f.srv, "127.0.0.1:" + strconv.Itoa(f.port)}
	var mu sync.Mutex
	var notes []string
	la, err := Start(context.Background(), l, Options{State: f.state, Tracking: Tracking{Subreaper: true},
		Callbacks: Callbacks{Notify: func(s string) { mu.Lock(); notes = append(notes, s); mu.Unlock() }}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { la.Stop(context.Background()) })
	got := make(chan ExitStatus, 1)
	go func() { got <- la.Wait() }()

	kill := func(pid int) int {
		t.Helper()
		fp := la.Worker()
		if fp.Pid != pid {
			t.Fatalf("worker %d, want %d", fp.Pid, pid)
		}
		fd, live, _ := fp.Open(procDefault)
		if live != verify.Alive {
			t.Fatalf("worker %d is %s", pid, live)
		}
		defer syscall.Close(fd)
		if err := unix.PidfdSendSignal(fd, unix.SIGTERM, nil, 0); err != nil {
			t.Fatal(err)
		}
		pidfd.Wait(context.Background(), fd, 10*time.Second)
		var next int
		for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
			select {
			case s := <-got:
				t.Fatalf("Wait returned %v when the worker %d exited while its supervisor runs", s, pid)
			default:
			}
			if next = la.Pid(); next != pid {
				break
			}
		}
		if next == pid {
			t.Fatalf("the worker %d was not followed to its replacement", pid)
		}
		return next
	}
	first := la.Pid()
	second := kill(first)
	rec, err := f.state.Load("respawn")
	if err != nil || rec.Worker.Pid != second || rec.Diverged != "" {
		t.Errorf("record after the first respawn: worker %d diverged %q (%v), want worker %d, not diverged", rec.Worker.Pid, rec.Diverged, err, second)
	}
	// The replacement binds the port a moment after its exec.
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if resp, err := http.Get("http://127.0.0.1:" + strconv.Itoa(f.port) + "/healthz"); err == nil {
			resp.Body.Close()
			break
		}
	}
	if r, err := la.Verify(context.Background()); err != nil || !r.Verified || r.Worker == nil || r.Worker.Pid != second {
		t.Errorf("Verify after the respawn: %v %+v", err, r)
	}
	third := kill(second)
	rec, _ = f.state.Load("respawn")
	if rec.Worker.Pid != third || !strings.Contains(rec.Diverged, "MOCK_LLM_KEY on the worker") {
		t.Errorf("record after the changed respawn: worker %d diverged %q, want worker %d, MOCK_LLM_KEY diverged", rec.Worker.Pid, rec.Diverged, third)
	}
	if _, err := la.Verify(context.Background()); err == nil {
		t.Error("Verify of the replacement with another value passed")
	}
	fd, _, _ := la.Worker().Open(procDefault)
	unix.PidfdSendSignal(fd, unix.SIGTERM, nil, 0)
	syscall.Close(fd)
	select {
	case s := <-got:
		if s.ExitCode() != 7 {
			t.Errorf("Wait = %v, want the supervisor's exit status 7", s)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("Wait did not return once the supervisor exited")
	}
	mu.Lock()
	defer mu.Unlock()
	if len(notes) != 2 || !strings.Contains(notes[0], "is the worker now") || !strings.HasSuffix(notes[0], ": verified") || strings.Contains(strings.Join(notes, "\n"), secret) {
		t.Errorf("notes: %q", notes)
	}
	noListener(t, f.port)
}

// TestWaitNoReplacement: a worker that exits while its root runs on and
// starts nothing ends the launch once ready.timeout passed: the root is
// stopped and Wait returns the worker's own status.
func TestWaitNoReplacement(t *testing.T) {
	f := newFixture(t)
	l := f.spec("noreplacement")
	l.Ready.Timeout = 2 * time.Second
	l.Command = []string{"sh", "-c", `"$0" serve "$1"; sleep 600`, f.srv, "127.0.0.1:" + strconv.Itoa(f.port)}
	la, err := Start(context.Background(), l, Options{State: f.state, Tracking: Tracking{Subreaper: true}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { la.Stop(context.Background()) })
	got := make(chan ExitStatus, 1)
	go func() { got <- la.Wait() }()
	fd, _, _ := la.Worker().Open(procDefault)
	unix.PidfdSendSignal(fd, unix.SIGTERM, nil, 0)
	syscall.Close(fd)
	select {
	case s := <-got:
		if s.ExitCode() != 128+int(syscall.SIGTERM) {
			t.Errorf("Wait = %v, want the worker's 143", s)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("Wait did not return after ready.timeout without a replacement")
	}
	if !la.tree.Root.Exited() {
		t.Error("the root runs on after Wait returned")
	}
}
