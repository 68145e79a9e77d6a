package treeevents

import (
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/childproof/childproof/internal/proccn"
	"github.com/childproof/childproof/internal/wakeup"
)

// Events hears the launched tree's forks, execs and exits through the
// proc connector (root only) and wakes whoever waits on the tree: the
// readiness probes (ready) and foreground supervision (changed, watch).
// Until it has heard one event of the tree (heard) the connector may be
// deaf here (another network namespace), and the waits keep polling at
// their usual pace. The events are read by the process's one listener
// (theHub), shared by every launch. Safe for concurrent use.
type Events struct {
	// ready and watch are rung on every event of the tree; changed gets
	// one too, for a select.
	ready, watch *wakeup.Wakeup
	changed      chan struct{}
	heard        atomic.Bool
	// gen counts the wake-ups (events, and lost events): a look made
	// at one gen still stands while it is the same.
	gen atomic.Uint64
	// lost is set when the kernel dropped events: the next look is a
	// full one whatever the events said.
	lost atomic.Bool
	// deaf is set when the hub's socket failed: te hears nothing more.
	deaf atomic.Bool
	// latest is the stamp (proccn.Now's clock) of the latest event of
	// the tree heard; the largest stamp once events were lost or te
	// went deaf (what was missed may be of any time). The hub sets it
	// before the gen it wakes with.
	latest atomic.Uint64
	// since is when Listen subscribed (proccn.Now): the tree's events
	// from then on are its. tree is nil until Follow; lostEarly is set
	// when events were dropped before it. The hub's mutex guards the
	// three.
	since     uint64
	tree      *proccn.Tree
	lostEarly bool
	closeOnce sync.Once
}

// eventCoalesce is the least time between two wake-ups of the trees'
// waiters by their events.
const eventCoalesce = 10 * time.Millisecond

// otherCoalesce is the least time between two reads of events none of
// which was a followed tree's; it doubles with each such read in a row,
// up to otherCoalesceMax, and is otherCoalesce again after one of a
// tree's. The connector hears every process of the machine: on a busy
// one (a build: hundreds of forks, execs and exits a second) a read
// every 5 ms was 200 wake-ups of the waiting childproof a second, which
// measured more than half its CPU while it waited. A tree's event after
// a quiet spell is heard at most otherCoalesceMax late.
const (
	otherCoalesce    = 5 * time.Millisecond
	otherCoalesceMax = 40 * time.Millisecond
)

// Listen subscribes to the proc connector before the tree starts
// (nil when not root, CHILDPROOF_NO_PROC_CONNECTOR is set, or the
// connector refuses).
func Listen() *Events {
	if os.Geteuid() != 0 || os.Getenv("CHILDPROOF_NO_PROC_CONNECTOR") != "" {
		return nil
	}
	te := &Events{ready: wakeup.New(), watch: wakeup.New(), changed: make(chan struct{}, 1)}
	if !theHub.add(te) {
		te.ready.Close()
		te.watch.Close()
		return nil
	}
	return te
}

// Follow starts following the tree from root (just started: its events
// since Listen are kept for it until now).
func (te *Events) Follow(root int) {
	if te == nil {
		return
	}
	theHub.follow(te, root)
}

// ring wakes every waiter.
func (te *Events) ring() {
	te.ready.Ring()
	te.watch.Ring()
	select {
	case te.changed <- struct{}{}:
	default:
	}
}

// Live reports whether the connector has been heard for this tree, and
// still is: the waits may rely on it and poll slowly.
func (te *Events) Live() bool { return te != nil && te.heard.Load() && !te.deaf.Load() }

// ReadyFd is the eventfd readiness waits poll (-1: none).
func (te *Events) ReadyFd() int {
	if te == nil {
		return -1
	}
	return te.ready.PollFd()
}

// DrainReady reports whether the tree moved since the last call.
func (te *Events) DrainReady() bool { return te != nil && te.ready.Drain() }

// Close stops listening (the hub may still ring it once, outside its
// lock: a closed wakeup is not rung).
func (te *Events) Close() {
	if te == nil {
		return
	}
	te.closeOnce.Do(func() {
		theHub.remove(te)
		te.ready.Close()
		te.watch.Close()
	})
}

// Unbroken reports whether the connector is heard for this tree and no
// event was lost since the last call (which clears the loss): a wait may
// then rely on the events and look seldom.
func (te *Events) Unbroken() bool { return te.Live() && !te.lost.Swap(false) }

// ChangedCh gets a value on each event of the tree (nil: never).
func (te *Events) ChangedCh() <-chan struct{} {
	if te == nil {
		return nil
	}
	return te.changed
}

// WatchFd is the eventfd supervision polls (-1: none).
func (te *Events) WatchFd() int {
	if te == nil {
		return -1
	}
	return te.watch.PollFd()
}

// DrainWatch reports whether the tree moved since the last call.
func (te *Events) DrainWatch() bool { return te != nil && te.watch.Drain() }

// Generation is the count of the tree's wake-ups, and whether the
// connector is heard (a generation means something only then).
func (te *Events) Generation() (uint64, bool) {
	if !te.Live() {
		return 0, false
	}
	return te.gen.Load(), true
}

// HeardBefore reports whether every event of the tree heard so far was
// stamped before at (proccn.Now's clock), none lost: the kernel stamps an
// event once what it tells (a fork's child in the cgroup, an exec's new
// comm and image, an exit) is there to read, so a listing read after at
// shows it already. Ask after Generation: an event heard since is then
// counted here too.
func (te *Events) HeardBefore(at uint64) bool {
	return te != nil && at != 0 && te.latest.Load() < at
}

// heardAt notes an event of the tree stamped t.
func (te *Events) heardAt(t uint64) {
	for {
		old := te.latest.Load()
		if t <= old || te.latest.CompareAndSwap(old, t) {
			return
		}
	}
}
