package readiness

import (
	"context"
	"sync/atomic"
	"time"

	"github.com/childproof/childproof/internal/pidfd"
	"github.com/childproof/childproof/internal/wakeup"
	"github.com/childproof/childproof/launcher/treeevents"
	"golang.org/x/sys/unix"
)

// pollSlice bounds one poll(2) of a wait.
const pollSlice = 5 * time.Millisecond

// treeWakes counts the readiness waits a tree event woke.
var treeWakes atomic.Int64

// TreeWakes is how many readiness waits a tree event woke, in this
// process so far (tests tell them from the paced probes).
func TreeWakes() int64 { return treeWakes.Load() }

// Wakes is what wakes a readiness wait besides its time: each may be
// nil. Not safe for concurrent use (its ListenWatch is not).
type Wakes struct {
	// Lines is rung on every line the tree prints.
	Lines *wakeup.Wakeup
	// Tree is the tree's fork, exec and exit events.
	Tree *treeevents.Events
	// Listen notices a listening socket that appears in the tree.
	Listen *ListenWatch
}

// Wait waits until at, the deadline, the worker's exit (wfd, its pidfd)
// or an event of w, whichever comes first; an event wakes it only once
// p's budget allows another probe. It reports whether the worker is
// still running.
func Wait(ctx context.Context, wfd int, at, deadline time.Time, p *Pacer, w Wakes) bool {
	if deadline.Before(at) {
		at = deadline
	}
	for {
		d := time.Until(at)
		if d <= 0 || ctx.Err() != nil {
			return !pidfd.Exited(wfd)
		}
		fds := []unix.PollFd{{Fd: int32(wfd), Events: unix.POLLIN}}
		if wf := w.Lines.PollFd(); wf >= 0 {
			fds = append(fds, unix.PollFd{Fd: int32(wf), Events: unix.POLLIN})
		}
		if tf := w.Tree.ReadyFd(); tf >= 0 {
			fds = append(fds, unix.PollFd{Fd: int32(tf), Events: unix.POLLIN})
		}
		// At most pollSlice in the syscall: the runtime's sysmon takes a
		// P back from a syscall of 10 ms, which keeps it waking every
		// 20 µs.
		n, _ := unix.Poll(fds, max(int((min(d, pollSlice)+time.Millisecond-1)/time.Millisecond), 1))
		if n > 0 && fds[0].Revents != 0 {
			return false
		}
		line, moved := false, false
		if n > 0 {
			line = w.Lines.Drain()
			moved = w.Tree.DrainReady()
		}
		if moved || line || w.Listen.Appeared() {
			if moved {
				treeWakes.Add(1)
			}
			p.Event()
			if e := p.Due(); e.After(time.Now()) {
				if e.Before(at) {
					at = e // probe as soon as the budget allows
				}
				continue
			}
			return true
		}
	}
}
