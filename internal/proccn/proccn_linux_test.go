package proccn

import (
	"encoding/binary"
	"os"
	"os/exec"
	"runtime"
	"sync"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// listen subscribes, or skips where the connector cannot be heard (not
// root on an older kernel, or another network namespace).
func listen(t *testing.T) *Listener {
	t.Helper()
	l, err := Listen()
	if err != nil {
		t.Skipf("the proc connector is not available here: %v", err)
	}
	t.Cleanup(func() { l.Close() })
	return l
}

// TestTreeEvents: a shell this test starts forks a child that execs and
// exits; the tree hears the fork from the shell, the child's exec and
// both exits, and nothing of processes outside it.
func TestTreeEvents(t *testing.T) {
	l := listen(t)
	cmd := exec.Command("sh", "-c", "sleep 0.05 & wait; exit 3")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	tree := NewTree(cmd.Process.Pid)
	var forked, execed, exited int
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	end := time.Now().Add(10 * time.Second)
	finished := false
	for time.Now().Before(end) && (exited < 2 || !finished) {
		fds := []unix.PollFd{{Fd: int32(l.Fd()), Events: unix.POLLIN}}
		unix.Poll(fds, 100)
		err := l.Read(func(e Event) {
			if !tree.Note(e) {
				return
			}
			switch e.Kind {
			case Fork:
				forked++
			case Exec:
				execed++
			case Exit:
				exited++
			}
		})
		if err != nil && err != ErrOverrun {
			t.Fatal(err)
		}
		select {
		case <-done:
			finished = true
		default:
		}
	}
	if forked < 1 || execed < 1 || exited < 2 {
		if forked+execed+exited == 0 {
			t.Skip("subscribed, but no event of this test's processes arrived (another network namespace?)")
		}
		t.Errorf("heard %d forks, %d execs, %d exits of the tree; want ≥ 1, ≥ 1, 2", forked, execed, exited)
	}
	if tree.Len() != 0 {
		t.Errorf("the tree still follows %d processes after all exited", tree.Len())
	}
}

// TestParse: a datagram of two messages (a fork and an exec) and a
// truncated one gives the two events.
func TestParse(t *testing.T) {
	msg := func(what uint32, data ...uint32) []byte {
		b := make([]byte, nlmsgHdrLen+cnMsgLen+procEventHeaderLen+4*len(data))
		ne := binary.NativeEndian
		ne.PutUint32(b[0:], uint32(len(b)))
		ne.PutUint32(b[nlmsgHdrLen:], cnIdxProc)
		ne.PutUint32(b[nlmsgHdrLen+4:], cnValProc)
		ne.PutUint32(b[nlmsgHdrLen+cnMsgLen:], what)
		for i, d := range data {
			ne.PutUint32(b[nlmsgHdrLen+cnMsgLen+procEventHeaderLen+4*i:], d)
		}
		return b
	}
	var b []byte
	b = append(b, msg(uint32(Fork), 10, 10, 11, 11)...)
	b = append(b, msg(uint32(Exec), 11, 11)...)
	b = append(b, msg(uint32(Exit), 12, 12)[:20]...)
	var got []Event
	parse(b, func(e Event) { got = append(got, e) })
	want := []Event{{Kind: Fork, Parent: 10, ParentTgid: 10, Pid: 11, Tgid: 11}, {Kind: Exec, Pid: 11, Tgid: 11}}
	if len(got) != len(want) || got[0] != want[0] || got[1] != want[1] {
		t.Errorf("parse = %+v, want %+v", got, want)
	}
}

// TestThreadEventsFiltered: threads this test makes and ends (goroutines
// locked to new threads, which end with them) reach no listener, while a
// process it forks still does (eventFilter).
func TestThreadEventsFiltered(t *testing.T) {
	l := listen(t)
	release := make(chan struct{})
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			runtime.LockOSThread() // never unlocked: the thread ends with the goroutine
			<-release
		}()
	}
	close(release)
	wg.Wait()
	cmd := exec.Command("sh", "-c", "exit 0")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	self, child := os.Getpid(), cmd.Process.Pid
	var threads []Event
	heardChild := false
	end := time.Now().Add(10 * time.Second)
	for time.Now().Before(end) && !heardChild {
		fds := []unix.PollFd{{Fd: int32(l.Fd()), Events: unix.POLLIN}}
		unix.Poll(fds, 100)
		err := l.Read(func(e Event) {
			if (e.Kind == Fork || e.Kind == Exit) && e.Pid != e.Tgid {
				threads = append(threads, e)
			}
			if e.Kind == Exit && e.Pid == child {
				heardChild = true
			}
		})
		if err != nil && err != ErrOverrun {
			t.Fatal(err)
		}
	}
	if !heardChild {
		t.Skip("subscribed, but the child's exit did not arrive (another network namespace?)")
	}
	if len(threads) > 0 {
		t.Errorf("heard %d thread events (this process is %d), e.g. %+v; want none", len(threads), self, threads[0])
	}
}

// TestMonotonicOffset reads a time namespace's monotonic offset from a
// timens_offsets file.
func TestMonotonicOffset(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want int64
	}{
		{"monotonic           0         0\nboottime            0         0\n", 0},
		{"monotonic      100000         0\nboottime            0         0\n", 100000e9},
		{"boottime 7 0\nmonotonic -5 250000000\n", -5e9 + 250000000},
		{"", 0},
		{"monotonic x 0\n", 0},
	} {
		if got := monotonicOffset(tt.in); got != tt.want {
			t.Errorf("monotonicOffset(%q) = %d, want %d", tt.in, got, tt.want)
		}
	}
}

// TestEventTime: the exec of a process this test starts is stamped
// between a Now before it starts and one after it exited (also in a time
// namespace, whose offset Now takes off: run the test binary under
// unshare -T --monotonic N to see it).
func TestEventTime(t *testing.T) {
	l := listen(t)
	before := Now()
	cmd := exec.Command("sh", "-c", "exec true")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pid := cmd.Process.Pid
	cmd.Wait()
	var at uint64
	for end := time.Now().Add(10 * time.Second); at == 0 && time.Now().Before(end); {
		unix.Poll([]unix.PollFd{{Fd: int32(l.Fd()), Events: unix.POLLIN}}, 100)
		l.Read(func(e Event) {
			if e.Kind == Exec && e.Tgid == pid {
				at = e.Time
			}
		})
	}
	after := Now()
	if at == 0 {
		t.Skip("subscribed, but the exec of this test's process did not arrive (another network namespace?)")
	}
	if at < before || at > after {
		t.Errorf("the exec is stamped %d, not between %d and %d (Now's clock is not the events')", at, before, after)
	}
}
