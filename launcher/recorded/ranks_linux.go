package recorded

import (
	"context"
	"slices"

	"github.com/childproof/childproof/launcher/proctree"
	"github.com/childproof/childproof/launcher/statedir"
	"github.com/childproof/childproof/spec"
	"github.com/childproof/childproof/verify"
)

// VerifyRanks verifies every worker of a multi-process job but the first
// with chk's expectations; r is the report of chk, which checked the
// first. It adds each worker and its problems to r.Workers. The job is
// the identity, not the pids, so the workers are re-selected from the live
// tree (verify.Workers over Tree). Each is judged by the exec-time
// evidence recorded for that process (pid and start time) where there is
// some, else by its live block. So a rank respawned since is judged by its
// own environment, never by a pid recorded earlier. Fewer workers than the
// job's N is a problem. A record of one worker leaves r as it is.
func VerifyRanks(ctx context.Context, v *verify.Verifier, l *spec.Launch, chk verify.Check, rec *statedir.Record, r *verify.Report) {
	n := len(rec.Ranks)
	if n < 2 {
		return
	}
	if len(l.Roles) > 0 {
		verifyRoles(ctx, v, l, chk, rec, r)
		return
	}
	t := Tree(v.Proc, rec)
	pids := []int{chk.Worker}
	for _, pid := range verify.Workers(v.Proc, t.Tree, chk.Comm, chk.Exe, n, nil) {
		if len(pids) < n && !slices.Contains(pids, pid) {
			pids = append(pids, pid)
		}
	}
	r.Workers = append(r.Workers[:0], r.WorkerCheck(""))
	if len(pids) < n {
		r.Add(verify.KindExited, "only %d of the job's %d workers run (the live tree has no other exec'd process matching the selector)", len(pids), n)
	}
	for i := 1; i < len(pids); i++ {
		rc := chk
		rc.Worker, rc.Ports, rc.NoReady, rc.ExecEnv = pids[i], nil, true, rec.EvidenceOf(v.Proc, pids[i])
		r.AddWorker(v.Verify(ctx, rc), "", verify.WorkerPlace("", i, n))
	}
	r.Verified = len(r.Problems) == 0
	r.SetOutcome(r.Judged())
}

// verifyRoles is VerifyRanks for a launch of worker roles: each role's
// processes re-selected from the live tree (proctree.SelectRoles), each verified
// with chk's expectations and the evidence rec kept for it, its entry and
// problems named by its role. A role with none of its processes left is
// a problem.
func verifyRoles(ctx context.Context, v *verify.Verifier, l *spec.Launch, chk verify.Check, rec *statedir.Record, r *verify.Report) {
	t := Tree(v.Proc, rec)
	pids, roles, ok := proctree.SelectRoles(v.Proc, l, t.Tree, nil)
	first := ""
	if len(roles) > 0 {
		first = roles[0]
	}
	r.Workers = append(r.Workers[:0], r.WorkerCheck(first))
	if !ok {
		r.Add(verify.KindExited, "a worker role has fewer processes than it selects in the live tree (%d found)", len(pids))
	}
	for i, pid := range pids {
		if pid == chk.Worker {
			continue
		}
		rc := chk
		rc.Worker, rc.Ports, rc.NoReady, rc.ExecEnv = pid, nil, true, rec.EvidenceOf(v.Proc, pid)
		r.AddWorker(v.Verify(ctx, rc), roles[i], verify.WorkerPlace(roles[i], i, len(pids)))
	}
	r.Verified = len(r.Problems) == 0
	r.SetOutcome(r.Judged())
}
