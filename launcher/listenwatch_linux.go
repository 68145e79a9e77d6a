package launcher

import (
	"slices"
	"sync/atomic"
	"time"

	"github.com/childproof/childproof/internal/sockdiag"
)

// listenWatch notices a listening socket that appears in the tree while
// readiness probes wait (a server that listens on another port once it
// is ready, a portless launch's server that binds when it has loaded):
// one sock_diag dump of the worker's network namespace every
// listenLookEvery, and the tree's fd tables read only for a socket that
// was not there at the last look. Not safe for concurrent use.
type listenWatch struct {
	la     *Launch
	worker int
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

// readyListenWakes counts the readiness waits that a listening socket
// appearing in the tree woke (tests tell them from the paced probes).
var readyListenWakes atomic.Int64

// newListenWatch takes the first look: what listens now is no event.
func (la *Launch) newListenWatch(worker int) *listenWatch {
	w := &listenWatch{la: la, worker: worker, began: time.Now()}
	if !sockdiag.OtherNetNS(la.opts.Proc.Root, worker) {
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
		return sockdiag.LookupFor(w.la.opts.Proc.Root, w.worker, 0)
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

// appeared reports whether a member of the tree holds a listening socket
// that the last look did not see; it looks at most every listenLookEvery
// (nil: never).
func (w *listenWatch) appeared() bool {
	if w == nil {
		return false
	}
	every := listenLookEvery
	if time.Since(w.began) > probeSlowAfter {
		every = listenLookSlow
	}
	if time.Since(w.at) < every {
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
	tree := w.la.tree.Members()
	if len(tree) == 0 {
		return false
	}
	for _, ino := range fresh {
		if len(w.la.opts.Proc.FindSocketOwners(ino, tree)) > 0 {
			readyListenWakes.Add(1)
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
