package verify

import (
	"fmt"
	"net/netip"
	"strings"

	"github.com/childproof/childproof/internal/sockdiag"
	"github.com/childproof/childproof/proc"
)

// Holder is a listening socket on a port and the processes holding it. It
// is plain data, safe for concurrent use while no one changes it.
type Holder struct {
	// Addr is the socket's bind address and port; 0.0.0.0 or :: accept
	// on every interface.
	Addr netip.AddrPort
	// UID owns the socket; Inode is its inode, as /proc/PID/fd shows it
	// (socket:[INODE]).
	UID   uint32
	Inode uint64
	// Pids hold the socket in their fd tables; empty when no visible
	// process does (another pid namespace, or unreadable fds).
	Pids []int
	// InTree reports that Pids were found in the candidate tree.
	InTree bool
}

// Holders finds who holds each listener on port: the fds of tree first,
// all of p only when none of tree holds it.
func Holders(p proc.FS, port int, tree []int) ([]Holder, error) {
	return holders(p, nil, port, tree)
}

// HoldersIn is Holders within look k (nil: none): a question the look
// asked already is answered as it was.
func HoldersIn(p proc.FS, k *Look, port int, tree []int) ([]Holder, error) {
	return holders(p, k, port, tree)
}

// holders is Holders within look k (nil: none).
func holders(p proc.FS, k *Look, port int, tree []int) ([]Holder, error) {
	ls, err := k.lookup(p, first(tree), port)
	if err != nil {
		return nil, err
	}
	out := make([]Holder, 0, len(ls))
	for _, l := range ls {
		h := Holder{Addr: l.AddrPort(), UID: l.UID, Inode: l.Inode}
		if len(tree) > 0 {
			h.Pids = k.treeOwners(p, l.Inode, tree)
			h.InTree = len(h.Pids) > 0
		}
		if !h.InTree {
			h.Pids = p.FindSocketOwners(l.Inode, nil)
		}
		out = append(out, h)
	}
	return out, nil
}

// Census describes h for a user: pid, uid, command line and age of each
// process holding it, or that no visible process does.
func (h Holder) Census(p proc.FS) string { return h.Describe(proc.NewDescriber(p)) }

// Describe is Census with the processes described by d (each pid read
// once over a census of many holders).
func (h Holder) Describe(d *proc.Describer) string {
	if len(h.Pids) == 0 {
		return fmt.Sprintf("%s held by uid %d with no visible process (another pid namespace, or fds unreadable) — socket inode %d",
			h.Addr, h.UID, h.Inode)
	}
	parts := make([]string, 0, len(h.Pids))
	for _, pid := range h.Pids {
		parts = append(parts, d.Describe(pid))
	}
	return fmt.Sprintf("%s held by %s", h.Addr, strings.Join(parts, "; "))
}

// listener is h's socket as package sockdiag has it.
func (h Holder) listener() sockdiag.Listener {
	return sockdiag.Listener{Addr: h.Addr.Addr(), Port: h.Addr.Port(), Inode: h.Inode, UID: h.UID}
}
