package launcher

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/childproof/childproof/internal/sockdiag"
	"github.com/childproof/childproof/verify"
)

// preforkQuiet is how long a tree whose worker shares its listening socket
// with another member (a pre-fork master and its workers, haproxy -W's
// master before it re-execs into wait mode) must stay unchanged — no new
// process, no exec — before its worker is judged: the master of haproxy -W
// binds, forks its worker, then re-execs itself and lets the socket go, and
// the worker is only known after that last exec.
const preforkQuiet = 300 * time.Millisecond

// stability watches a launched tree for the quiet that judging a shared
// socket's worker needs.
type stability struct {
	sig   string
	since time.Time
}

// treeSignature describes tree's processes, their comms and where each
// one's last exec put its environment area (an exec moves it): it changes
// with every fork, exit and exec.
func (la *Launch) treeSignature(tree []int) string {
	var b strings.Builder
	for _, pid := range slices.Sorted(slices.Values(tree)) {
		s, err := la.opts.Proc.Stat(pid)
		if err != nil {
			fmt.Fprintf(&b, "%d:? ", pid)
			continue
		}
		fmt.Fprintf(&b, "%d:%s:%s ", pid, s.Comm, verify.ExecArea(s))
	}
	return b.String()
}

// sharesSocket reports whether another member of tree holds a listener on
// a declared port that worker holds: the pre-fork shape, where which
// member is the worker can change until the tree stops changing.
func (la *Launch) sharesSocket(worker int, tree []int) bool {
	for _, pt := range la.Spec.Ports {
		ls, err := sockdiag.LookupFor(la.opts.Proc.Root, worker, pt.Number)
		if err != nil {
			continue
		}
		for _, l := range ls {
			pids := la.opts.Proc.FindSocketOwners(l.Inode, tree)
			if len(pids) > 1 && slices.Contains(pids, worker) {
				return true
			}
		}
	}
	return false
}

// settledFor reports whether the tree has been the same for quiet.
func (s *stability) settledFor(la *Launch, tree []int, quiet time.Duration) bool {
	return s.settledSig(la.treeSignature(tree), quiet)
}

// settledSig reports whether sig has been the same for quiet.
func (s *stability) settledSig(sig string, quiet time.Duration) bool {
	if sig != s.sig {
		s.sig, s.since = sig, time.Now()
		return false
	}
	return time.Since(s.since) >= quiet
}

// ownerSignature describes who holds the declared ports, not how many:
// the worker (pid, comm, exec area) and each distinct kind of holder
// (comm and exec area: a pre-fork master's workers forked from it share
// its area). A pre-fork server that recycles its workers (gunicorn
// --max-requests) keeps it while its tree never stops changing; a
// master that re-execs (haproxy -W) or a holder that is another program
// changes it.
func (la *Launch) ownerSignature(worker int, tree []int) string {
	var b strings.Builder
	if s, err := la.opts.Proc.Stat(worker); err == nil {
		fmt.Fprintf(&b, "%d:%s:%s", worker, s.Comm, verify.ExecArea(s))
	}
	var kinds []string
	for _, pt := range la.Spec.Ports {
		hs, err := verify.Holders(la.opts.Proc, pt.Number, tree)
		if err != nil {
			continue
		}
		for _, h := range hs {
			for _, pid := range h.Pids {
				k := fmt.Sprintf("%d/%t/?", pt.Number, h.InTree)
				if s, err := la.opts.Proc.Stat(pid); err == nil {
					k = fmt.Sprintf("%d/%t/%s:%s", pt.Number, h.InTree, s.Comm, verify.ExecArea(s))
				}
				if !slices.Contains(kinds, k) {
					kinds = append(kinds, k)
				}
			}
		}
	}
	slices.Sort(kinds)
	for _, k := range kinds {
		b.WriteString(" " + k)
	}
	return b.String()
}

// holdsAll reports whether worker itself holds a listener on every
// declared port.
func (la *Launch) holdsAll(worker int, tree []int) bool {
	for _, pt := range la.Spec.Ports {
		hs, err := verify.Holders(la.opts.Proc, pt.Number, tree)
		if err != nil {
			return false
		}
		if !slices.ContainsFunc(hs, func(h verify.Holder) bool { return slices.Contains(h.Pids, worker) }) {
			return false
		}
	}
	return true
}

// treeMoved reports whether the worker is to be judged again: the tree
// changed since worker was picked (a fork, an exit, an exec) and either
// worker exec'd since, or it shares its socket with members forked since
// (haproxy -W's master, picked while it held the socket alone, forks its
// worker and re-execs into wait mode later: judged after a quiet spell),
// or the pick now falls on another member.
func (la *Launch) treeMoved(worker int) bool {
	if len(la.Spec.Ports) == 0 {
		return false
	}
	tree := la.tree.members()
	before := la.notes.picked
	now := la.treeSignature(tree)
	if now == before || la.notes.settled != "" && la.ownerSignature(worker, tree) == la.notes.settled {
		// (Unchanged, or only in members that do not change who holds
		// the port: a pre-fork server recycling its workers.)
		return false
	}
	if area := execAreaIn(now, worker); area != execAreaIn(before, worker) {
		return true
	}
	if la.sharesSocket(worker, tree) {
		// It forked members that hold its socket since: judged once
		// the tree has been quiet (findAndVerify waits for that).
		return true
	}
	again := pickWorker(la.opts.Proc, la.Spec, la.tree.root.pid(), tree, la.exec.watch.execComm)
	return again != 0 && again != worker
}

// execAreaIn returns pid's comm and exec area as a treeSignature shows them.
func execAreaIn(sig string, pid int) string {
	prefix := fmt.Sprintf("%d:", pid)
	for _, f := range strings.Fields(sig) {
		if strings.HasPrefix(f, prefix) {
			return f
		}
	}
	return ""
}
