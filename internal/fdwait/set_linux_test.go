package fdwait

import (
	"context"
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/sys/unix"
)

// child starts a process that runs until killed and opens its pidfd; the
// test kills and reaps it at the end.
func child(t *testing.T) (*exec.Cmd, int) {
	t.Helper()
	cmd := exec.Command("sleep", "60")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	fd, err := unix.PidfdOpen(cmd.Process.Pid, 0)
	if err != nil {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
		unix.Close(fd)
	})
	return cmd, fd
}

// pipe makes a pipe, closed at the end of the test.
func pipe(t *testing.T) (r, w *os.File) {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close(); w.Close() })
	return r, w
}

// kill kills cmd and waits until its pidfd fd is readable, without
// reaping it.
func kill(t *testing.T, cmd *exec.Cmd, fd int) {
	t.Helper()
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	for {
		if n, err := unix.Poll([]unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}, -1); err == nil && n > 0 {
			return
		}
	}
}

// makers make a Set both ways: in the network poller and with poll(2).
var makers = []struct {
	name string
	make func(fds ...int) *Set
}{
	{"epoll", New},
	{"poll", func(fds ...int) *Set {
		s := New(fds...)
		s.Close()
		return s
	}},
}

// TestWait waits on real pidfds and a pipe: what each wait reports, in
// the network poller and in the poll(2) fallback.
func TestWait(t *testing.T) {
	for _, m := range makers {
		t.Run(m.name, func(t *testing.T) {
			if m.name == "epoll" {
				s := New()
				if s.ep == nil {
					t.Fatal("New fell back to poll(2): the network poller did not take an epoll instance")
				}
				s.Close()
			}
			var got, want []string
			check := func(what string, s *Set, ctx context.Context, deadline time.Time, readable bool) {
				t.Helper()
				if r := s.Wait(ctx, deadline); r != readable {
					got = append(got, what)
				}
			}
			soon := func() time.Time { return time.Now().Add(20 * time.Millisecond) }

			// A running process's pidfd until its deadline, then once it exited.
			cmd, fd := child(t)
			r, w := pipe(t)
			s := m.make(fd, -1, int(r.Fd()))
			defer s.Close()
			start := time.Now()
			dl := soon()
			check("running process", s, context.Background(), dl, false)
			if time.Now().Before(dl) {
				t.Errorf("Wait returned %v before its deadline", dl.Sub(time.Now()))
			}
			check("passed deadline", s, context.Background(), start, false)
			// A line on the pipe wakes it, and it stays readable until read.
			w.Write([]byte("x"))
			check("pipe written", s, context.Background(), time.Time{}, true)
			check("pipe still unread", s, context.Background(), start, true)
			var b [1]byte
			r.Read(b[:])
			check("pipe read", s, context.Background(), soon(), false)
			// A cancelled context ends a wait without a deadline.
			ctx, cancel := context.WithCancel(context.Background())
			go cancel()
			check("context cancelled", s, ctx, time.Time{}, false)
			check("after the cancelled context", s, context.Background(), soon(), false)
			// The process's exit wakes a wait without a deadline.
			done := make(chan bool)
			go func() { done <- s.Wait(context.Background(), time.Time{}) }()
			kill(t, cmd, fd)
			if !<-done {
				got = append(got, "process killed")
			}
			check("exited process", s, context.Background(), start, true)
			check("exited process, context ended", s, ctx, time.Time{}, true)

			// A Set of nothing waits for its deadline.
			empty := m.make(-1)
			defer empty.Close()
			check("empty set", empty, context.Background(), soon(), false)

			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("waits that reported wrongly (-want +got):\n%s", diff)
			}
		})
	}
}

// TestWaitMany waits on one of several running processes: only its exit
// wakes the Set.
func TestWaitMany(t *testing.T) {
	for _, m := range makers {
		t.Run(m.name, func(t *testing.T) {
			var fds []int
			var cmds []*exec.Cmd
			for range 3 {
				cmd, fd := child(t)
				cmds, fds = append(cmds, cmd), append(fds, fd)
			}
			s := m.make(fds...)
			defer s.Close()
			if s.Wait(context.Background(), time.Now().Add(10*time.Millisecond)) {
				t.Fatal("Wait = true while every process runs")
			}
			kill(t, cmds[1], fds[1])
			if !s.Wait(context.Background(), time.Time{}) {
				t.Fatal("Wait = false after one process exited")
			}
		})
	}
}

// TestWaitClosedFd waits on a pidfd the caller closed after making the
// Set: the process's exit still wakes it.
func TestWaitClosedFd(t *testing.T) {
	cmd, fd := child(t)
	own, err := unix.FcntlInt(uintptr(fd), unix.F_DUPFD_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	s := New(own)
	defer s.Close()
	unix.Close(own)
	if s.Wait(context.Background(), time.Now().Add(10*time.Millisecond)) {
		t.Fatal("Wait = true while the process runs")
	}
	kill(t, cmd, fd)
	if !s.Wait(context.Background(), time.Time{}) {
		t.Fatal("Wait = false after the process exited")
	}
}
