package launcher

import (
	"errors"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/childproof/childproof/internal/proccn"
)

// treeEvents hears the launched tree's forks, execs and exits through the
// proc connector (root only) and wakes whoever waits on the tree: the
// readiness probes (ready) and foreground supervision (changed, watch).
// Until it has heard one event of the tree (heard) the connector may be
// deaf here (another network namespace), and the waits keep polling at
// their usual pace. Safe for concurrent use.
type treeEvents struct {
	l *proccn.Listener
	// ready and watch are rung on every event of the tree; changed gets
	// one too, for a select.
	ready, watch *wakeup
	changed      chan struct{}
	heard        atomic.Bool
	// gen counts the wake-ups (events, and lost events): a look made
	// at one gen still stands while it is the same.
	gen atomic.Uint64
	// lost is set when the kernel dropped events: the next look is a
	// full one whatever the events said.
	lost atomic.Bool
	// tree is the reader's own (set before it starts).
	tree      *proccn.Tree
	closeOnce sync.Once
}

// treeEventLooks counts supervision's looks at the tree that its events
// brought (tests tell the connector's wake-ups from the polling).
var treeEventLooks atomic.Int64

// eventCoalesce is the least time between two wake-ups of the tree's
// waiters by its events.
const eventCoalesce = 10 * time.Millisecond

// otherCoalesce is the least time between two reads of events none of
// which was the tree's; it doubles with each such read in a row, up to
// otherCoalesceMax, and is otherCoalesce again after one of the tree's.
// The connector hears every process of the machine: on a busy one (a
// build: hundreds of forks, execs and exits a second) a read every 5 ms
// was 200 wake-ups of the waiting childproof a second, which measured
// more than half its CPU while it waited. A tree's event after a quiet
// spell is heard at most otherCoalesceMax late.
const (
	otherCoalesce    = 5 * time.Millisecond
	otherCoalesceMax = 40 * time.Millisecond
)

// listenTree subscribes to the proc connector before the tree starts
// (nil when not root, CHILDPROOF_NO_PROC_CONNECTOR is set, or the
// connector refuses).
func listenTree() *treeEvents {
	if os.Geteuid() != 0 || os.Getenv("CHILDPROOF_NO_PROC_CONNECTOR") != "" {
		return nil
	}
	l, err := proccn.Listen()
	if err != nil {
		return nil
	}
	return &treeEvents{l: l, ready: newWakeup(), watch: newWakeup(), changed: make(chan struct{}, 1)}
}

// follow starts following the tree from root (just started: its events
// since are still queued) in the background.
func (te *treeEvents) follow(root int) {
	if te == nil {
		return
	}
	te.tree = proccn.NewTree(root)
	go func() {
		pause := otherCoalesce
		for {
			moved := false
			err := te.l.Wait(func(e proccn.Event) {
				if te.tree.Note(e) {
					moved = true
				}
			})
			if errors.Is(err, proccn.ErrOverrun) {
				te.lost.Store(true)
				moved = true
			} else if err != nil {
				return // closed
			}
			if moved {
				te.heard.Store(true)
				te.gen.Add(1)
				te.ring()
				// A tree that forks in a loop wakes its waiters at most
				// every eventCoalesce: what happens meanwhile is queued
				// and read at once after it.
				time.Sleep(eventCoalesce)
				pause = otherCoalesce
			} else {
				// The rest of the machine's events are read in batches:
				// at most one wake-up every pause for them.
				time.Sleep(pause)
				pause = min(2*pause, otherCoalesceMax)
			}
		}
	}()
}

// ring wakes every waiter.
func (te *treeEvents) ring() {
	te.ready.ring()
	te.watch.ring()
	select {
	case te.changed <- struct{}{}:
	default:
	}
}

// live reports whether the connector has been heard for this tree: the
// waits may rely on it and poll slowly.
func (te *treeEvents) live() bool { return te != nil && te.heard.Load() }

// readyFd is the eventfd readiness waits poll (-1: none).
func (te *treeEvents) readyFd() int {
	if te == nil {
		return -1
	}
	return te.ready.pollFd()
}

// drainReady reports whether the tree moved since the last call.
func (te *treeEvents) drainReady() bool { return te != nil && te.ready.drain() }

// close stops listening (the reader ends at its next read, without
// being waited for: a closed wakeup is not rung).
func (te *treeEvents) close() {
	if te == nil {
		return
	}
	te.closeOnce.Do(func() {
		te.l.Close()
		te.ready.close()
		te.watch.close()
	})
}

// wantsTreeEvents reports whether the launch listens to its tree's
// events: a foreground launch (supervision judges every new member), or
// one whose readiness is probed (a fork, exec or exit in the tree brings
// the next probe forward). A detached launch ready on a TCP connect or
// a log line does not pay for the subscription.
func (la *Launch) wantsTreeEvents() bool {
	k := la.Spec.Ready.Kind()
	return !la.opts.Detach || k == "http" || k == "exec" || la.opts.Ready.Func != nil
}

// watchEvery is how often foreground supervision looks at the tree
// without an event: watchEveryHeard once the events are heard (and none
// was lost), else watchEvery.
func (te *treeEvents) watchEvery() time.Duration {
	if te.live() && !te.lost.Swap(false) {
		return watchEveryHeard
	}
	return watchEvery
}

// changedCh gets a value on each event of the tree (nil: never).
func (te *treeEvents) changedCh() <-chan struct{} {
	if te == nil {
		return nil
	}
	return te.changed
}

// watchFd is the eventfd supervision polls (-1: none).
func (te *treeEvents) watchFd() int {
	if te == nil {
		return -1
	}
	return te.watch.pollFd()
}

// drainWatch reports whether the tree moved since the last call.
func (te *treeEvents) drainWatch() bool { return te != nil && te.watch.drain() }

// generation is the count of the tree's wake-ups, and whether the
// connector is heard (a generation means something only then).
func (te *treeEvents) generation() (uint64, bool) {
	if !te.live() {
		return 0, false
	}
	return te.gen.Load(), true
}
