package launcher

import (
	"context"
	"fmt"
	"slices"

	"github.com/childproof/childproof/launcher/proctree"
	"github.com/childproof/childproof/proc"
	"github.com/childproof/childproof/spec"
	"github.com/childproof/childproof/verify"
)

// VerifyRanks verifies every worker of a multi-process job but the first
// with chk's expectations; r is the report of chk, which checked the
// first. It adds each worker and its problems to r.Workers. The job is
// the identity, not the pids, so the workers are re-selected from the live
// tree (verify.Workers over RecordedTree). Each is judged by the exec-time
// evidence recorded for that process (pid and start time) where there is
// some, else by its live block. So a rank respawned since is judged by its
// own environment, never by a pid recorded earlier. Fewer workers than the
// job's N is a problem. A record of one worker leaves r as it is.
func VerifyRanks(ctx context.Context, v *verify.Verifier, l *spec.Launch, chk verify.Check, rec *Record, r *verify.Report) {
	n := len(rec.Ranks)
	if n < 2 {
		return
	}
	if len(l.Roles) > 0 {
		verifyRoles(ctx, v, l, chk, rec, r)
		return
	}
	t := RecordedTree(v.Proc, rec)
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
func verifyRoles(ctx context.Context, v *verify.Verifier, l *spec.Launch, chk verify.Check, rec *Record, r *verify.Report) {
	t := RecordedTree(v.Proc, rec)
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

// Reselect re-selects the worker of the recorded launch rec of l from its
// live tree when the recorded worker is gone, as when a supervisor
// respawned it, gunicorn --max-requests or uWSGI recycling. The new
// worker is the process its selector names (for a job, the first of its
// workers), else the in-tree owner of a declared port. It returns rec
// itself while the recorded worker runs. Otherwise it returns a copy of
// rec naming the new worker, with the evidence rec kept for it (usually
// none), and a note saying so. It returns nil when nothing is selected:
// the launch is gone, or it has neither selector nor port.
func Reselect(p proc.FS, l *spec.Launch, rec *Record) (*Record, string) {
	if rec.Worker.Check(p) == verify.Alive {
		return rec, ""
	}
	t := RecordedTree(p, rec)
	var live []int
	for _, pid := range t.Tree {
		if st, err := p.Stat(pid); err == nil && st.State != 'Z' {
			live = append(live, pid)
		}
	}
	pid := proctree.ReselectPid(p, l, live)
	if pid == 0 {
		return nil, ""
	}
	fp, err := verify.TakeFingerprint(p, pid)
	if err != nil {
		return nil, ""
	}
	out := *rec
	ev := rec.EvidenceOf(p, pid)
	out.Worker, out.ExecEnv, out.ExecExe, out.ExecArea = fp, nil, "", ""
	if ev != nil {
		out.ExecEnv, out.ExecExe, out.ExecArea = ev.Digests, ev.Exe, ev.Area
	}
	note := fmt.Sprintf("the recorded worker (pid %d) is %s; the live tree's worker, pid %d (%s), was selected again and is judged by its own environment", rec.Worker.Pid, rec.Worker.Check(p), pid, fp.Comm)
	return &out, note
}

// recordedOwners is Check.Owners for the recorded launch rec of l's
// worker roles, their processes re-selected from the live tree.
func recordedOwners(p proc.FS, l *spec.Launch, rec *Record) map[int]verify.PortOwners {
	pids, roles, _ := proctree.SelectRoles(p, l, RecordedTree(p, rec).Tree, nil)
	return proctree.RoleOwners(l, pids, roles)
}

// reselector is how package census re-selects a respawned worker.
func (s *State) reselector() func(proc.FS, *Record) (*Record, string) { return s.reselectLive }

// reselectLive is Reselect for a recorded launch by itself (stop,
// relaunch, history, ps): its workers re-selected by the selector the
// record keeps, else — a record written before it kept one — by the
// spec file it names, read as verify SPEC reads it (the record's
// non-secret --var values, unset env() unknown). It returns a copy of
// rec naming the live tree's worker and a note, or nil while the
// recorded worker runs, for a launch stopped or still pending, or when
// nothing is selected.
func (s *State) reselectLive(p proc.FS, rec *Record) (*Record, string) {
	if rec.Pending || rec.Stopped != nil {
		return nil, ""
	}
	if live := rec.Worker.Check(p); live == verify.Alive || live == verify.Unknown {
		return nil, ""
	}
	l := rec.SelectorLaunch()
	if l == nil {
		l = s.specSelector(rec)
	}
	if l == nil {
		return nil, ""
	}
	again, note := Reselect(p, l, rec)
	if again == nil || again == rec {
		return nil, ""
	}
	// The live worker's exe and comm, masked as the record keeps them.
	again.Worker = maskExe(s.Secrets(Known{Record: rec}), again.Worker)
	return again, s.Secrets(Known{Record: rec}).Text(note)
}

// specSelector is the launch of rec read from the spec file it names
// (by s.ReadSpec), for its selector; nil when it cannot be read or
// there is no ReadSpec.
func (s *State) specSelector(rec *Record) *spec.Launch {
	if rec.SpecPath == "" || s.ReadSpec == nil {
		return nil
	}
	vars := map[string]string{}
	for _, v := range rec.Vars {
		if v.Digest == "" {
			vars[v.Name] = v.Value
		}
	}
	l, err := s.ReadSpec(rec.SpecPath, rec.Name, vars)
	if err != nil {
		return nil
	}
	return l
}
