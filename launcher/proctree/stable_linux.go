package proctree

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/childproof/childproof/proc"
	"github.com/childproof/childproof/spec"
	"github.com/childproof/childproof/verify"
)

// Stability watches a launched tree for the quiet that judging a shared
// socket's worker needs. It is not safe for concurrent use.
type Stability struct {
	sig   string
	since time.Time
}

// Signature describes tree's processes, their comms and where each
// one's last exec put its environment area (an exec moves it): it changes
// with every fork, exit and exec.
func Signature(p proc.FS, tree []int) string {
	var b strings.Builder
	for _, pid := range slices.Sorted(slices.Values(tree)) {
		s, err := p.Stat(pid)
		if err != nil {
			fmt.Fprintf(&b, "%d:? ", pid)
			continue
		}
		fmt.Fprintf(&b, "%d:%s:%s ", pid, s.Comm, verify.ExecArea(s))
	}
	return b.String()
}

// SharesSocket reports whether another member of tree holds a listener on
// a declared port of l that worker holds: the pre-fork shape, where which
// member is the worker can change until the tree stops changing. It asks
// within look k (nil: none).
func SharesSocket(p proc.FS, k *verify.Look, l *spec.Launch, worker int, tree []int) bool {
	for _, pt := range l.Ports {
		inodes, err := k.ListenerInodes(p, worker, pt.Number)
		if err != nil {
			continue
		}
		for _, inode := range inodes {
			pids := k.TreeOwners(p, inode, tree)
			if len(pids) > 1 && slices.Contains(pids, worker) {
				return true
			}
		}
	}
	return false
}

// SettledFor reports whether the tree has been the same for quiet.
func (s *Stability) SettledFor(p proc.FS, tree []int, quiet time.Duration) bool {
	return s.SettledSig(Signature(p, tree), quiet)
}

// SettledSig reports whether sig has been the same for quiet.
func (s *Stability) SettledSig(sig string, quiet time.Duration) bool {
	if sig != s.sig {
		s.sig, s.since = sig, time.Now()
		return false
	}
	return time.Since(s.since) >= quiet
}

// OwnerSignature describes who holds l's declared ports, not how many:
// the worker (pid, comm, exec area) and each distinct kind of holder
// (comm and exec area: a pre-fork master's workers forked from it share
// its area). A pre-fork server that recycles its workers (gunicorn
// --max-requests) keeps it while its tree never stops changing; a
// master that re-execs (haproxy -W) or a holder that is another program
// changes it. It asks within look k (nil: none).
func OwnerSignature(p proc.FS, k *verify.Look, l *spec.Launch, worker int, tree []int) string {
	var b strings.Builder
	if s, err := p.Stat(worker); err == nil {
		fmt.Fprintf(&b, "%d:%s:%s", worker, s.Comm, verify.ExecArea(s))
	}
	var kinds []string
	for _, pt := range l.Ports {
		hs, err := verify.HoldersIn(p, k, pt.Number, tree)
		if err != nil {
			continue
		}
		for _, h := range hs {
			for _, pid := range h.Pids {
				kind := fmt.Sprintf("%d/%t/?", pt.Number, h.InTree)
				if s, err := p.Stat(pid); err == nil {
					kind = fmt.Sprintf("%d/%t/%s:%s", pt.Number, h.InTree, s.Comm, verify.ExecArea(s))
				}
				if !slices.Contains(kinds, kind) {
					kinds = append(kinds, kind)
				}
			}
		}
	}
	slices.Sort(kinds)
	for _, kind := range kinds {
		b.WriteString(" " + kind)
	}
	return b.String()
}

// HoldsAll reports whether worker itself holds a listener on every
// declared port of l, asked within look k (nil: none).
func HoldsAll(p proc.FS, k *verify.Look, l *spec.Launch, worker int, tree []int) bool {
	for _, pt := range l.Ports {
		hs, err := verify.HoldersIn(p, k, pt.Number, tree)
		if err != nil {
			return false
		}
		if !slices.ContainsFunc(hs, func(h verify.Holder) bool { return slices.Contains(h.Pids, worker) }) {
			return false
		}
	}
	return true
}

// NoExecAreaIn reports whether sig shows pid without an environment area:
// a process caught inside its execve (its comm set, its stack not laid
// out yet), or one whose area /proc hides.
func NoExecAreaIn(sig string, pid int) bool {
	return strings.HasSuffix(ExecAreaIn(sig, pid), ":")
}

// ExecAreaIn returns pid's comm and exec area as a Signature shows them.
func ExecAreaIn(sig string, pid int) string {
	prefix := fmt.Sprintf("%d:", pid)
	for _, f := range strings.Fields(sig) {
		if strings.HasPrefix(f, prefix) {
			return f
		}
	}
	return ""
}
