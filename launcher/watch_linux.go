package launcher

import (
	"slices"

	"github.com/childproof/childproof/internal/pidfd"
	"github.com/childproof/childproof/verify"
)

// watchMembers judges the members of the tree that appeared since the
// last look (a respawned worker, an engine restart, a re-exec'd member:
// by pid and start time), as the launch's tree judgement does, and reports
// a member carrying a protected name with another value at once: through
// Options.Notify, and in the record (Record.Diverged: ps shows
// "diverged"; verify judges the live tree and exits 3). Without moved
// (the tree's events said it changed) it looks at most every 250 ms.
// Call with the tree's lock held.
func (la *Launch) watchMembers(moved bool) {
	w := &la.notes.watch
	if la.Report == nil || !w.Due(moved) {
		return
	}
	if la.worker.fd >= 0 && pidfd.Exited(la.worker.fd) {
		// The worker exited: Wait looks for its replacement and judges
		// it as the worker (awaitReplacement); the rest of the tree is
		// looked at once it is decided.
		return
	}
	p := la.opts.Proc
	tree := la.tree.Members()
	fresh := w.Look(p, tree, moved)
	if len(fresh) == 0 {
		return
	}
	v := &verify.Verifier{Proc: p, State: la.State}
	c := verify.CheckFromSpec(la.Spec, la.Env.Expect())
	tc := la.treeCheck(tree, la.worker.Pid)
	r := verify.NewReport(la.Spec.Name)
	v.JudgeTree(r, c, tc)
	for _, pr := range r.Problems {
		if pr.Kind != verify.KindEnvDiverged || !slices.Contains(fresh, pr.Subject.Pid) || !w.Warn(pr.Subject.Pid) {
			continue
		}
		msg := "diverged after it was verified: " + la.Env.Secrets().Text(pr.Message)
		if la.opts.Notify != nil {
			la.opts.Notify(msg)
		}
		if la.Record != nil && la.Record.Diverged == "" {
			la.Record.Diverged = msg
			la.State.Save(la.Record)
		}
	}
}
