package verify

import (
	"maps"
	"slices"

	"github.com/childproof/childproof/internal/sockdiag"
	"github.com/childproof/childproof/proc"
)

// Look memoises, within one look at a tree (choosing the worker by its
// port, then checking its ports before the readiness probe; or the find
// loop's questions of one full look), the listeners of each port (one
// sock_diag dump each) and the processes of the tree holding each socket
// (their fd tables): a second question in the same look asks the kernel
// again for the same answer. Every look after the probe is a new one. A
// nil Look memoises nothing. Not safe for concurrent use.
type Look struct {
	p proc.FS
	// ns is a process of the tree looked at: its network namespace's
	// table is the one asked (0: the caller's); each question's own
	// when eachNS.
	ns        int
	eachNS    bool
	listeners map[lookKey]lookListeners
	// own are the listeners of each port in the caller's network
	// namespace, asked within the look by other means (Listened).
	own map[int][]sockdiag.Listener
	// owners are the holders of each socket among tree.
	owners map[uint64][]int
	tree   []int
	// at names the fd where a process of a tree was found holding a
	// socket, in this look or the one it follows (Again): read first.
	at map[heldSocket]string
}

// heldSocket is a socket held by a process.
type heldSocket struct {
	pid   int
	inode uint64
}

// lookKey is a question about a port's listeners: in the namespace of
// process ns.
type lookKey struct{ ns, port int }

type lookListeners struct {
	ls  []sockdiag.Listener
	err error
}

func newLook(p proc.FS, ns int) *Look {
	return &Look{p: p, ns: ns, listeners: map[lookKey]lookListeners{}, owners: map[uint64][]int{}}
}

// NewLook begins a look at a tree through p, for HoldersIn. Each
// question asks the table of the namespace it names, as Holders does.
func NewLook(p proc.FS) *Look {
	k := newLook(p, 0)
	k.eachNS = true
	return k
}

// lookup is sockdiag.LookupFor of port in the namespace of the tree
// (nil look, or one of each question's namespace: of ns).
func (k *Look) lookup(p proc.FS, ns, port int) ([]sockdiag.Listener, error) {
	if k == nil {
		return sockdiag.LookupFor(p.Root, ns, port)
	}
	if !k.eachNS {
		ns = k.ns
	}
	key := lookKey{ns, port}
	if r, ok := k.listeners[key]; ok {
		return r.ls, r.err
	}
	var ls []sockdiag.Listener
	var err error
	if own, ok := k.own[port]; ok && (ns <= 0 || !sockdiag.OtherNetNS(k.p.Root, ns)) {
		ls = own // what sockdiag.LookupFor asks there: the caller's table
	} else {
		ls, err = sockdiag.LookupFor(k.p.Root, ns, port)
	}
	k.listeners[key] = lookListeners{ls, err}
	return ls, err
}

// Listened notes the listeners on port in the caller's network namespace
// (each a Holder's Addr, UID and Inode; its Pids are not read), asked
// within look k by other means (the find loop's kept sock_diag socket):
// the look's questions about port in a namespace that is the caller's
// are answered by them, not asked again. A nil look notes nothing.
func (k *Look) Listened(port int, hs []Holder) {
	if k == nil {
		return
	}
	if k.own == nil {
		k.own = map[int][]sockdiag.Listener{}
	}
	ls := make([]sockdiag.Listener, 0, len(hs))
	for _, h := range hs {
		ls = append(ls, h.listener())
	}
	k.own[port] = ls
}

// ListenerInodes is the socket inodes of sockdiag.LookupFor's listeners
// on port in the namespace of process ns, asked once in look k (nil: each
// time).
func (k *Look) ListenerInodes(p proc.FS, ns, port int) ([]uint64, error) {
	var ls []sockdiag.Listener
	var err error
	if k != nil && !k.eachNS {
		ls, err = sockdiag.LookupFor(p.Root, ns, port)
	} else {
		ls, err = k.lookup(p, ns, port)
	}
	inodes := make([]uint64, 0, len(ls))
	for _, ln := range ls {
		inodes = append(inodes, ln.Inode)
	}
	return inodes, err
}

// treeOwners is p.FindSocketOwners of inode among tree: asked once per
// socket while the look's questions name the same tree (a question about
// another tree starts its memo afresh).
func (k *Look) treeOwners(p proc.FS, inode uint64, tree []int) []int {
	if k == nil {
		return p.FindSocketOwners(inode, tree)
	}
	if !slices.Equal(k.tree, tree) {
		k.tree = slices.Clone(tree)
		clear(k.owners)
	}
	if pids, ok := k.owners[inode]; ok {
		return pids
	}
	pids := k.findOwners(inode, tree)
	k.owners[inode] = pids
	return pids
}

// findOwners is k.p.FindSocketOwners(inode, tree), noting where each
// holder holds it: a holder is asked first about the fd where this look,
// or the one it follows, found it (one link read), its fd table read only
// when that fd is no longer the socket.
func (k *Look) findOwners(inode uint64, tree []int) []int {
	var out []int
	for _, pid := range tree {
		key := heldSocket{pid, inode}
		if fd, ok := k.at[key]; ok && k.p.HasSocketAt(pid, fd, inode) {
			out = append(out, pid)
			continue
		}
		if fd, _ := k.p.SocketFD(pid, inode); fd != "" {
			out = append(out, pid)
			if k.at == nil {
				k.at = map[heldSocket]string{}
			}
			k.at[key] = fd
		}
	}
	return out
}

// Again begins a new look through p at the tree k looked at (the look
// after the readiness probe): none of k's answers stand, and each
// question asks the table of the namespace it names, as a nil look does;
// a holder of a socket is asked first about the fd where k found it. A
// nil k begins none: nil.
func (k *Look) Again(p proc.FS) *Look {
	if k == nil {
		return nil
	}
	n := NewLook(p)
	n.at = maps.Clone(k.at)
	return n
}

// TreeOwners is p.FindSocketOwners of inode among tree, asked once in
// look k (nil: each time).
func (k *Look) TreeOwners(p proc.FS, inode uint64, tree []int) []int {
	return k.treeOwners(p, inode, tree)
}

// first is the first pid of tree, or 0.
func first(tree []int) int {
	if len(tree) == 0 {
		return 0
	}
	return tree[0]
}
