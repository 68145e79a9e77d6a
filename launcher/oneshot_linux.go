package launcher

import (
	"context"
	"path/filepath"
	"slices"

	"github.com/childproof/childproof/launcher/exectrace"
	"github.com/childproof/childproof/outcome"
	"github.com/childproof/childproof/verify"
)

// runOneshot is a oneshot launch's attempt: the tree runs to completion
// (the tracer captures every exec meanwhile), then its worker — the
// launched process's last image, or the process the worker selector
// names — is judged on the environment its exec received. Success is a
// verified environment; the exit status is Wait's, as for any launch.
// The wait has no deadline (ready.timeout is not a oneshot's); ctx ends
// it, and the tree is stopped.
func (la *Launch) runOneshot(ctx context.Context, v *verify.Verifier, r *verify.Report) error {
	root := la.tree.Root
	select {
	case <-root.Done:
	case <-ctx.Done():
		return la.interrupted(r, ctx.Err())
	}
	pid, ev, ok := la.oneshotWorker()
	if !ok {
		what := "no exec of the launch was captured (CHILDPROOF_NO_EXEC_CAPTURE, or the tracer could not attach)"
		if sel := la.Spec.Worker; sel.Comm != "" || sel.Exe != "" {
			what = "no process of the launch exec'd the program the worker selector names"
		}
		r.Add(verify.KindEnvUnreadable, "the oneshot launch ran to completion (%s), but %s: its environment cannot be proven", root.Status, what)
		r.SetOutcome(r.Judged())
		return &Error{Outcome: r.Outcome, Report: r, Msg: r.Failure(), Tail: la.withTail(r)}
	}
	fp := verify.Fingerprint{Pid: pid, Comm: ev.Comm, Exe: ev.Exe}
	if pid == root.FP.Pid {
		fp.StartTime, fp.UID, fp.PidfsInode = root.FP.StartTime, root.FP.UID, root.FP.PidfsInode
	}
	la.worker.Fingerprint = fp
	la.exec.env = &verify.ExecEnv{Vars: ev.Vars, Exe: ev.Exe, Area: ev.Area}
	c := verify.CheckFromSpec(la.Spec, la.Env.Expect())
	v.JudgeExecEnv(r, c, verify.WorkerInfo{Pid: fp.Pid, Comm: fp.Comm, Exe: fp.Exe, StartTime: fp.StartTime, UID: fp.UID}, ev.Vars)
	if len(r.Problems) > 0 {
		r.Verified = false
		r.SetOutcome(r.Judged())
		return &Error{Outcome: r.Outcome, Report: r, Msg: r.Failure(), Tail: la.withTail(r), Hint: hintFor(r, la.Spec), Fix: FixReport, Spec: la.Spec}
	}
	r.Ready, r.Verified = true, true
	r.SetOutcome(outcome.OK)
	la.Report = r
	return la.record(pid)
}

// oneshotWorker picks a oneshot's worker from the tracer's captures: the
// process that exec'd the program worker { comm | exe } names (the
// launched process first, else the lowest pid), else the launched
// process itself, with the environment its last exec received.
func (la *Launch) oneshotWorker() (int, exectrace.Capture, bool) {
	caps := la.exec.watch.Captured()
	root := la.tree.Root.FP.Pid
	sel := la.Spec.Worker
	if sel.Comm == "" && sel.Exe == "" {
		ev, ok := caps[root]
		return root, ev, ok
	}
	exe := sel.Exe
	if exe != "" {
		if p, err := filepath.EvalSymlinks(exe); err == nil {
			exe = p
		}
	}
	matches := func(ev exectrace.Capture) bool {
		if sel.Comm != "" {
			return ev.Comm == sel.Comm
		}
		got := ev.Exe
		if p, err := filepath.EvalSymlinks(got); err == nil {
			got = p
		}
		return got == exe
	}
	if ev, ok := caps[root]; ok && matches(ev) {
		return root, ev, true
	}
	var pids []int
	for pid, ev := range caps {
		if matches(ev) {
			pids = append(pids, pid)
		}
	}
	if len(pids) == 0 {
		return 0, exectrace.Capture{}, false
	}
	pid := slices.Min(pids)
	return pid, caps[pid], true
}
