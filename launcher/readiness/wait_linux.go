package readiness

import (
	"context"
	"sync/atomic"
	"time"

	"github.com/childproof/childproof/internal/fdwait"
	"github.com/childproof/childproof/internal/pidfd"
	"github.com/childproof/childproof/launcher/treeevents"
)

// treeWakes counts the readiness waits a tree event woke.
var treeWakes atomic.Int64

// TreeWakes is how many readiness waits a tree event woke, in this
// process so far (tests tell them from the paced probes).
func TreeWakes() int64 { return treeWakes.Load() }

// wakes is what wakes a readiness wait besides its time: each but fds
// may be nil. Not safe for concurrent use (its listenWatch is not).
type wakes struct {
	// lines is rung on every line the tree prints.
	lines Bell
	// tree is the tree's fork, exec and exit events.
	tree *treeevents.Events
	// listen notices a listening socket that appears in the tree.
	listen *listenWatch
	// fds is the worker's pidfd, the lines' and the tree's fds, which
	// the wait waits on.
	fds *fdwait.Set
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
		if !time.Now().Before(at) || ctx.Err() != nil {
			return !pidfd.Exited(wfd)
		}
		// Woken for the listen watch's next look too.
		until := at
		if next, ok := w.listen.next(); ok && next.Before(until) {
			until = next
		}
		woke := w.fds.Wait(ctx, until)
		if woke && pidfd.Exited(wfd) {
			return false
		}
		line, moved := false, false
		if woke {
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
