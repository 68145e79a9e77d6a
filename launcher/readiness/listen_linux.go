package readiness

import (
	"slices"
	"sync/atomic"
	"time"

	"github.com/childproof/childproof/internal/sockdiag"
	"github.com/childproof/childproof/proc"
)

// listenWatch notices a listening socket that appears in the tree while
// readiness probes wait (a server that listens on another port once it
// is ready, a portless launch's server that binds when it has loaded):
// one sock_diag dump of the worker's network namespace every
// listenLookEvery, and the tree's fd tables read only for a socket that
// was not there at the last look. Not safe for concurrent use.
type listenWatch struct {
	p      proc.FS
	worker int
	// members lists the tree's pids.
	members func() []int
	// known is the sorted socket inodes of the last look, at.
	known []uint64
	at    time.Time
	began time.Time
	// diag is a kept sock_diag socket when the worker shares this
	// process's network namespace (nil: sockdiag.LookupFor each look).
	diag *sockdiag.Conn
}

// How often a readiness wait looks at the socket table: listenLookEvery,
// then listenLookSlow once the wait has lasted probeSlowAfter (a model's
// load of minutes).
const (
	listenLookEvery = 20 * time.Millisecond
	listenLookSlow  = 100 * time.Millisecond
)

// listenWakes counts the readiness waits that a listening socket
// appearing in the tree woke (tests tell them from the paced probes).
var listenWakes atomic.Int64

// ListenWakes is how many readiness waits a listening socket appearing
// in the tree woke, in this process so far (tests tell them from the
// paced probes).
func ListenWakes() int64 { return listenWakes.Load() }

// newListenWatch takes the first look at the listening sockets of
// worker's network namespace, read through p (members lists the tree's
// pids): what listens now is no event.
func newListenWatch(p proc.FS, worker int, members func() []int) *listenWatch {
	w := &listenWatch{p: p, worker: worker, members: members, began: time.Now()}
	if !sockdiag.OtherNetNS(p.Root, worker) {
		w.diag, _ = sockdiag.Open()
	}
	w.known, _ = w.look()
	w.at = time.Now()
	return w
}

// look lists the listening sockets' inodes in the worker's network
// namespace, sorted.
func (w *listenWatch) look() ([]uint64, error) {
	ls, err := w.diag.ListenersOr(0, func() ([]sockdiag.Listener, error) {
		return sockdiag.LookupFor(w.p.Root, w.worker, 0)
	})
	if err != nil {
		return nil, err
	}
	out := make([]uint64, 0, len(ls))
	for _, l := range ls {
		out = append(out, l.Inode)
	}
	slices.Sort(out)
	return out, nil
}

// next is when appeared looks next (ok false: never).
func (w *listenWatch) next() (at time.Time, ok bool) {
	if w == nil {
		return time.Time{}, false
	}
	return w.at.Add(w.every()), true
}

// every is how often appeared looks.
func (w *listenWatch) every() time.Duration {
	if time.Since(w.began) > probeSlowAfter {
		return listenLookSlow
	}
	return listenLookEvery
}

// appeared reports whether a member of the tree holds a listening socket
// that the last look did not see; it looks at most every listenLookEvery
// (nil: never).
func (w *listenWatch) appeared() bool {
	if w == nil {
		return false
	}
	if time.Since(w.at) < w.every() {
		return false
	}
	w.at = time.Now()
	now, err := w.look()
	if err != nil {
		return false
	}
	var fresh []uint64
	for _, ino := range now {
		if _, ok := slices.BinarySearch(w.known, ino); !ok {
			fresh = append(fresh, ino)
		}
	}
	w.known = now
	if len(fresh) == 0 {
		return false
	}
	tree := w.members()
	if len(tree) == 0 {
		return false
	}
	for _, ino := range fresh {
		if len(w.p.FindSocketOwners(ino, tree)) > 0 {
			listenWakes.Add(1)
			return true
		}
	}
	return false
}

// close lets go of the kept socket (nil: nothing).
func (w *listenWatch) close() {
	if w != nil {
		w.diag.Close()
	}
}
