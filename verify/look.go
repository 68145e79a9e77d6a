package verify

import (
	"github.com/childproof/childproof/internal/sockdiag"
	"github.com/childproof/childproof/proc"
)

// look memoises, within one look at a tree (choosing the worker by its
// port, then checking its ports before the readiness probe), the listeners
// of each port (one sock_diag dump each) and the processes of the tree
// holding each socket (their fd tables): a second question in the same
// look asks the kernel again for the same answer. Every look after the
// probe is a new one. A nil look memoises nothing.
type look struct {
	p proc.FS
	// ns is a process of the tree looked at: its network namespace's
	// table is the one asked (0: the caller's).
	ns        int
	listeners map[int]lookListeners
	owners    map[uint64][]int
}

type lookListeners struct {
	ls  []sockdiag.Listener
	err error
}

func newLook(p proc.FS, ns int) *look {
	return &look{p: p, ns: ns, listeners: map[int]lookListeners{}, owners: map[uint64][]int{}}
}

// lookup is sockdiag.LookupFor of port in the namespace of the tree
// (nil look: of ns).
func (k *look) lookup(p proc.FS, ns, port int) ([]sockdiag.Listener, error) {
	if k == nil {
		return sockdiag.LookupFor(p.Root, ns, port)
	}
	if r, ok := k.listeners[port]; ok {
		return r.ls, r.err
	}
	ls, err := sockdiag.LookupFor(k.p.Root, k.ns, port)
	k.listeners[port] = lookListeners{ls, err}
	return ls, err
}

// treeOwners is p.FindSocketOwners of inode among tree, the tree being
// the same for every question of one look.
func (k *look) treeOwners(p proc.FS, inode uint64, tree []int) []int {
	if k == nil {
		return p.FindSocketOwners(inode, tree)
	}
	if pids, ok := k.owners[inode]; ok {
		return pids
	}
	pids := k.p.FindSocketOwners(inode, tree)
	k.owners[inode] = pids
	return pids
}

// first is the first pid of tree, or 0.
func first(tree []int) int {
	if len(tree) == 0 {
		return 0
	}
	return tree[0]
}
