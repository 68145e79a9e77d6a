package launcher

import (
	"context"

	"github.com/childproof/childproof/internal/pidfd"
	"github.com/childproof/childproof/launcher/proctree"
	"github.com/childproof/childproof/verify"
	"golang.org/x/sys/unix"
)

// pickRanks looks for the job's N workers (verify.Workers) in tree and
// returns the first once all N are there, 0 before; la.ranks holds them.
func (la *Launch) pickRanks(tree []int) int {
	l := la.Spec
	var roles []string
	pids := verify.Workers(la.opts.Proc, tree, l.Worker.Comm, l.Worker.Exe, l.Worker.N(), la.exec.watch.ExecComm)
	if len(l.Roles) > 0 {
		var ok bool
		if pids, roles, ok = proctree.SelectRoles(la.opts.Proc, l, tree, la.exec.watch.ExecComm); !ok {
			return 0
		}
	} else if len(pids) < l.Worker.N() {
		return 0
	}
	la.closeRanks()
	for i, pid := range pids {
		fp, err := verify.TakeFingerprint(la.opts.Proc, pid)
		if err != nil {
			la.closeRanks()
			return 0
		}
		fd, live, _ := fp.Open(la.opts.Proc)
		if live != verify.Alive {
			la.closeRanks()
			return 0
		}
		rk := rank{fp: fp, fd: fd}
		if roles != nil {
			rk.role = roles[i]
		}
		la.ranks = append(la.ranks, rk)
	}
	return pids[0]
}

// multiWorker reports whether the launch's workers are picked as a job
// (pickRanks): several of one selector, or worker roles.
func (la *Launch) multiWorker() bool {
	return la.Spec.Worker.N() > 1 || len(la.Spec.Roles) > 0
}

// rankOwners is proctree.RoleOwners for the picked ranks.
func (la *Launch) rankOwners() map[int]verify.PortOwners {
	var pids []int
	var roles []string
	for _, rk := range la.ranks {
		pids, roles = append(pids, rk.fp.Pid), append(roles, rk.role)
	}
	return proctree.RoleOwners(la.Spec, pids, roles)
}

// closeRanks lets go of the ranks' pidfds.
func (la *Launch) closeRanks() {
	for _, r := range la.ranks {
		if r.fd >= 0 {
			unix.Close(r.fd)
		}
	}
	la.ranks = nil
}

// verifyRanks verifies the environment of every rank but the first (which
// vr is the report of) with c's expectations and adds each rank, its env
// checks and its problems to vr (Report.Workers). A job of one worker has
// no ranks: vr is left as it is.
func (la *Launch) verifyRanks(ctx context.Context, v *verify.Verifier, c verify.Check, vr *verify.Report) {
	if len(la.ranks) < 2 {
		return
	}
	for i := range la.ranks {
		rk := &la.ranks[i]
		if ev, ok := la.exec.watch.Evidence(rk.fp.Pid); ok {
			rk.ev = &verify.ExecEnv{Vars: ev.Vars, Exe: ev.Exe, Area: ev.Area}
		}
		if i == 0 {
			vr.Workers = append(vr.Workers, vr.WorkerCheck(rk.role))
			continue
		}
		rc := c
		rc.Worker, rc.Ports, rc.NoReady, rc.ExecEnv = rk.fp.Pid, nil, true, rk.ev
		vr.AddWorker(v.Verify(ctx, rc), rk.role, verify.WorkerPlace(rk.role, i, len(la.ranks)))
	}
	vr.Verified = len(vr.Problems) == 0
	vr.SetOutcome(vr.Judged())
}

// goneRank returns the pid of a rank that has exited, 0 when all run.
func (la *Launch) goneRank() int {
	for _, r := range la.ranks {
		if r.fd >= 0 && pidfd.Exited(r.fd) {
			return r.fp.Pid
		}
	}
	return 0
}

// equalMatches notes (Report.Notes) proctree.EqualMatchesNote for the launch.
func (la *Launch) equalMatches(worker int, tree []int, r *verify.Report) {
	if n := proctree.EqualMatchesNote(la.opts.Proc, la.Spec, worker, tree, la.exec.watch.ExecComm); n != "" {
		r.Notes = append(r.Notes, n)
	}
}

// treeCheck is what the tree judgement of a launch in progress reads:
// tree, the worker (or the job's ranks) it skips, and the exec-time
// evidence the tracer captured for every exec in the tree.
func (la *Launch) treeCheck(tree []int, worker int) verify.TreeCheck {
	t := verify.TreeCheck{Tree: tree, Workers: []int{worker}}
	for _, rk := range la.ranks {
		t.Workers = append(t.Workers, rk.fp.Pid)
	}
	w := la.exec.watch
	t.Evidence = func(pid int) *verify.ExecEnv {
		if ev, ok := w.Evidence(pid); ok {
			return &verify.ExecEnv{Vars: ev.Vars, Exe: ev.Exe, Area: ev.Area}
		}
		return nil
	}
	t.Execd = func(pid int) bool {
		_, ok := w.Evidence(pid)
		return ok
	}
	return t
}

// workerImagesWith is proctree.Images of the worker, whose image is
// given, and the picked ranks.
func (la *Launch) workerImagesWith(worker int, image string) string {
	var ranks []int
	for _, rk := range la.ranks {
		ranks = append(ranks, rk.fp.Pid)
	}
	return proctree.ImagesWith(la.opts.Proc, worker, image, ranks)
}
