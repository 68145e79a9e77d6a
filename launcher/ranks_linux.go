package launcher

import (
	"context"
	"fmt"
	"slices"

	"github.com/childproof/childproof/internal/pidfd"
	"github.com/childproof/childproof/proc"
	"github.com/childproof/childproof/schema"
	"github.com/childproof/childproof/verify"
	"golang.org/x/sys/unix"
)

// pickRanks looks for the job's N workers (verify.Workers) in tree and
// returns the first once all N are there, 0 before; la.ranks holds them.
func (la *Launch) pickRanks(tree []int) int {
	l := la.Spec
	pids := verify.Workers(la.opts.Proc, tree, l.Worker.Comm, l.Worker.Exe, l.Worker.N(), la.exec.watch.execComm)
	if len(pids) < l.Worker.N() {
		return 0
	}
	la.closeRanks()
	for _, pid := range pids {
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
		la.ranks = append(la.ranks, rank{fp: fp, fd: fd})
	}
	return pids[0]
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
		if ev, ok := la.exec.watch.evidence(rk.fp.Pid); ok {
			rk.ev = &verify.ExecEnv{Vars: ev.Vars, Exe: ev.Exe, Area: ev.Area}
		}
		if i == 0 {
			vr.Workers = append(vr.Workers, workerCheck(vr))
			continue
		}
		rc := c
		rc.Worker, rc.Ports, rc.NoReady, rc.ExecEnv = rk.fp.Pid, nil, true, rk.ev
		rr := v.Verify(ctx, rc)
		vr.Workers = append(vr.Workers, workerCheck(rr))
		for _, p := range rr.Problems {
			vr.AddAbout(p.Kind, p.Subject, p.Err, "worker %d/%d: %s", i+1, len(la.ranks), p.Message)
		}
	}
	vr.Verified = len(vr.Problems) == 0
	vr.SetOutcome(vr.Judged())
}

// workerCheck is the Report.Workers entry of a one-worker report.
func workerCheck(r *verify.Report) verify.WorkerCheck {
	wc := verify.WorkerCheck{Env: r.Env, EnvSource: r.EnvSource}
	if r.Worker != nil {
		wc.WorkerInfo = *r.Worker
	}
	return wc
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

// equalMatches notes (Report.Notes) equalMatchesNote for the launch.
func (la *Launch) equalMatches(worker int, tree []int, r *verify.Report) {
	if n := equalMatchesNote(la.opts.Proc, la.Spec, worker, tree, la.exec.watch.execComm); n != "" {
		r.Notes = append(r.Notes, n)
	}
}

// equalMatchesNote says, for a launch of one worker, that its selector also
// matches several processes below the worker with no matching descendant
// and no declared port — the ranks of a job below its agent (torchrun's
// python3 agent and python3 ranks) — instead of silently verifying the
// agent alone; "" when not. A pre-fork server's workers hold its socket: no
// note. execComm may be nil.
func equalMatchesNote(p proc.FS, l *schema.Launch, worker int, tree []int, execComm func(int) string) string {
	if l.Worker.N() > 1 || l.Worker.Comm == "" && l.Worker.Exe == "" {
		return ""
	}
	if tree == nil {
		tree = append([]int{worker}, p.Descendants(worker)...)
	}
	leaves := verify.Workers(p, tree, l.Worker.Comm, l.Worker.Exe, len(tree), execComm)
	if len(leaves) < 2 || slices.Contains(leaves, worker) {
		return ""
	}
	below := p.Descendants(worker)
	for _, pid := range leaves {
		if !slices.Contains(below, pid) || holdsAny(p, l, pid, tree) {
			return ""
		}
	}
	sel := fmt.Sprintf("comm %q", l.Worker.Comm)
	if l.Worker.Exe != "" {
		sel = fmt.Sprintf("exe %q", l.Worker.Exe)
	}
	return fmt.Sprintf("%s also matches %d processes below the worker (pid %d) that match equally (pids %s): if they are the job's workers (ranks below an agent), set worker { count = %d } to verify each, or a sharper selector",
		sel, len(leaves), worker, joinPids(leaves), len(leaves))
}

// holdsAny reports whether pid holds a listener on a declared port of l.
func holdsAny(p proc.FS, l *schema.Launch, pid int, tree []int) bool {
	for _, pt := range l.Ports {
		hs, _ := verify.Holders(p, pt.Number, tree)
		for _, h := range hs {
			if slices.Contains(h.Pids, pid) {
				return true
			}
		}
	}
	return false
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
		if ev, ok := w.evidence(pid); ok {
			return &verify.ExecEnv{Vars: ev.Vars, Exe: ev.Exe, Area: ev.Area}
		}
		return nil
	}
	t.Execd = func(pid int) bool {
		_, ok := w.evidence(pid)
		return ok
	}
	return t
}

// RecordedTree is what the tree judgement of a recorded launch reads: its
// live members (liveMembers, and the descendants of its root and worker),
// the recorded workers it skips, and each member's exec-time evidence as
// the record kept it (RecordMember), for the process of that pid and
// start time only.
func RecordedTree(p proc.FS, rec *Record) verify.TreeCheck {
	tree := liveMembers(p, rec)
	for _, top := range []int{rec.Root.Pid, rec.Worker.Pid} {
		if top == 0 || !slices.Contains(tree, top) {
			continue
		}
		for _, d := range p.Descendants(top) {
			if !slices.Contains(tree, d) {
				tree = append(tree, d)
			}
		}
	}
	t := verify.TreeCheck{Tree: tree, Workers: []int{rec.Worker.Pid}}
	for _, rk := range rec.Ranks {
		t.Workers = append(t.Workers, rk.Worker.Pid)
	}
	t.Evidence = func(pid int) *verify.ExecEnv {
		st, err := p.Stat(pid)
		if err != nil {
			return nil
		}
		for _, m := range rec.Members {
			if m.Pid == pid && m.StartTime == st.StartTime {
				return &verify.ExecEnv{Digests: m.ExecEnv, Exe: m.ExecExe, Area: m.ExecArea}
			}
		}
		return nil
	}
	return t
}
