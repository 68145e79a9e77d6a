package verify

import (
	"errors"
	"fmt"
	"strings"

	"github.com/childproof/childproof/internal/proc"
	"github.com/childproof/childproof/internal/sockdiag"
)

// Holder is a listening socket on a port and the processes holding it.
type Holder struct {
	Listener sockdiag.Listener
	// Pids hold the socket in their fd tables; empty when no visible
	// process does (another pid namespace, or unreadable fds).
	Pids []int
	// InTree reports that Pids were found in the candidate tree.
	InTree bool
}

// listeners returns the LISTEN sockets on port from sock_diag, falling
// back to /proc/net/tcp{,6}.
func listeners(p proc.FS, port int) ([]sockdiag.Listener, error) {
	ls, err := sockdiag.Listeners(uint16(port))
	if errors.Is(err, sockdiag.ErrUnsupported) {
		return sockdiag.ProcListeners(p.Root, uint16(port))
	}
	return ls, err
}

// holders finds who holds each listener on port: the fds of tree first,
// all of /proc only when none of tree holds it.
func Holders(p proc.FS, port int, tree []int) ([]Holder, error) {
	ls, err := listeners(p, port)
	if err != nil {
		return nil, err
	}
	out := make([]Holder, 0, len(ls))
	for _, l := range ls {
		h := Holder{Listener: l}
		if len(tree) > 0 {
			h.Pids = p.FindSocketOwners(l.Inode, tree)
			h.InTree = len(h.Pids) > 0
		}
		if !h.InTree {
			h.Pids = p.FindSocketOwners(l.Inode, nil)
		}
		out = append(out, h)
	}
	return out, nil
}

// Census describes a holder for a user: pid, uid, cmdline and age of each
// process, or that no visible process holds it.
func (h Holder) Census(p proc.FS) string { return h.CensusBy(NewDescriber(p)) }

// Describer describes processes for census lines, each pid once: a census
// of many ports held by one process reads its /proc entries once.
type Describer struct {
	p    proc.FS
	seen map[int]string
}

// NewDescriber returns a Describer reading p.
func NewDescriber(p proc.FS) *Describer { return &Describer{p: p, seen: map[int]string{}} }

// Pid is DescribePid, remembered.
func (d *Describer) Pid(pid int) string {
	s, ok := d.seen[pid]
	if !ok {
		s = DescribePid(d.p, pid)
		d.seen[pid] = s
	}
	return s
}

// CensusBy is Census with processes described by d.
func (h Holder) CensusBy(d *Describer) string {
	if len(h.Pids) == 0 {
		return fmt.Sprintf("%s held by uid %d with no visible process (another pid namespace, or fds unreadable) — socket inode %d",
			h.Listener.AddrPort(), h.Listener.UID, h.Listener.Inode)
	}
	var parts []string
	for _, pid := range h.Pids {
		parts = append(parts, d.Pid(pid))
	}
	return fmt.Sprintf("%s held by %s", h.Listener.AddrPort(), strings.Join(parts, "; "))
}

func DescribePid(p proc.FS, pid int) string {
	uid := "?"
	if s, err := p.Status(pid); err == nil {
		uid = fmt.Sprint(s.UID)
	}
	age := "?"
	if s, err := p.Stat(pid); err == nil {
		age = Age(p, s.StartTime).String()
	}
	argv, _ := p.Cmdline(pid)
	cmd := strings.Join(argv, " ")
	if len(cmd) > 200 {
		cmd = cmd[:200] + "…"
	}
	return fmt.Sprintf("pid %d uid %s age %s: %s", pid, uid, age, cmd)
}

// AllListeners returns every TCP socket in LISTEN state, IPv4 and IPv6,
// by port: one sock_diag dump for a census of many ports.
func AllListeners(p proc.FS) (map[int][]sockdiag.Listener, error) {
	ls, err := listeners(p, 0)
	if err != nil {
		return nil, err
	}
	out := map[int][]sockdiag.Listener{}
	for _, l := range ls {
		out[int(l.Port)] = append(out[int(l.Port)], l)
	}
	return out, nil
}
