package readiness

import (
	"context"
	"sync/atomic"
	"time"

	"github.com/childproof/childproof/internal/pidfd"
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

// wakes is what wakes a readiness wait besides its time: each may be
// nil. Not safe for concurrent use (its listenWatch is not).
type wakes struct {
	// lines is rung on every line the tree prints.
	lines Bell
	// tree is the tree's fork, exec and exit events.
	tree *treeevents.Events
	// listen notices a listening socket that appears in the tree.
	listen *listenWatch
}

// wait waits until at, the deadline, the worker's exit (wfd, its pidfd)
// or an event of w, whichever comes first; an event wakes it only once
// p's budget allows another probe. It reports whether the worker is
// still running.
func wait(ctx context.Context, wfd int, at, deadline time.Time, p *pacer, w wakes) bool {
	if deadline.Before(at) {
		at = deadline
	}
	for {
		d := time.Until(at)
		if d <= 0 || ctx.Err() != nil {
			return !pidfd.Exited(wfd)
		}
		fds := []unix.PollFd{{Fd: int32(wfd), Events: unix.POLLIN}}
		if wf := pollFd(w.lines); wf >= 0 {
			fds = append(fds, unix.PollFd{Fd: int32(wf), Events: unix.POLLIN})
		}
		if tf := w.tree.ReadyFd(); tf >= 0 {
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
			line = drain(w.lines)
			moved = w.tree.DrainReady()
		}
		if moved || line || w.listen.appeared() {
			if moved {
				treeWakes.Add(1)
			}
			p.event()
			if e := p.due(); e.After(time.Now()) {
				if e.Before(at) {
					at = e // probe as soon as the budget allows
				}
				continue
			}
			return true
		}
	}
}
