package launcher

import (
	"time"

	"github.com/childproof/childproof/launcher/proctree"
	"github.com/childproof/childproof/proc"
)

// preforkQuiet is how long a tree whose worker shares its listening socket
// with another member (a pre-fork master and its workers, haproxy -W's
// master before it re-execs into wait mode) must stay unchanged — no new
// process, no exec — before its worker is judged: the master of haproxy -W
// binds, forks its worker, then re-execs itself and lets the socket go, and
// the worker is only known after that last exec.
const preforkQuiet = 300 * time.Millisecond

// treeMoved reports whether the worker is to be judged again: the tree
// changed since worker was picked (a fork, an exit, an exec) and either
// worker exec'd since, or it shares its socket with members forked since
// (haproxy -W's master, picked while it held the socket alone, forks its
// worker and re-execs into wait mode later: judged after a quiet spell),
// or the pick now falls on another member. tree is the tree as listed
// for this look (stillTheWorker's, on which the ports were checked),
// read through p (one holding the worker's records).
func (la *Launch) treeMoved(p proc.FS, worker int, tree []int) bool {
	if len(la.Spec.Ports) == 0 {
		return false
	}
	before := la.notes.picked
	now := proctree.Signature(p, tree)
	if now == before || la.notes.settled != "" && proctree.OwnerSignature(p, nil, la.Spec, worker, tree) == la.notes.settled {
		// (Unchanged, or only in members that do not change who holds
		// the port: a pre-fork server recycling its workers.)
		return false
	}
	if area := proctree.ExecAreaIn(now, worker); area != proctree.ExecAreaIn(before, worker) {
		return true
	}
	if proctree.SharesSocket(p, nil, la.Spec, worker, tree) {
		// It forked members that hold its socket since: judged once
		// the tree has been quiet (findAndVerify waits for that).
		return true
	}
	again := proctree.PickWorker(p, la.Spec, la.tree.Root.Pid(), tree, la.exec.watch.ExecComm)
	return again != 0 && again != worker
}
