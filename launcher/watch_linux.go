package launcher

import (
	"slices"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/childproof/childproof/internal/pidfd"
	"github.com/childproof/childproof/launcher/treeevents"
	"github.com/childproof/childproof/proc"
	"github.com/childproof/childproof/verify"
)

// judged notes the images of tree as judged: the members the launch
// verified (the watch reports only what appears after them).
func (w *memberWatch) judged(p proc.FS, tree []int) {
	w.seen, w.warned = map[int]string{}, map[int]bool{}
	for _, pid := range tree {
		if st, err := p.Stat(pid); err == nil {
			w.seen[pid] = imageKey(st)
		}
	}
}

// watchEvery is how often foreground supervision looks for new members of
// the tree (its cost: one listing of the tree, and reading the environ of
// the members that are new).
const watchEvery = 250 * time.Millisecond

// treeEventLooks counts supervision's looks at the tree that its events
// brought (tests tell the connector's wake-ups from the polling).
var treeEventLooks atomic.Int64

// watchEveryOf is how often foreground supervision looks at the tree
// without an event: watchEveryHeard once its events te are heard (and
// none was lost), else watchEvery.
func watchEveryOf(te *treeevents.Events) time.Duration {
	if te.Unbroken() {
		return watchEveryHeard
	}
	return watchEvery
}

// watchEveryHeard is how often it looks anyway when the tree's events
// are heard (the proc connector): they wake it for every change, and the
// look is the fallback for events the kernel dropped.
const watchEveryHeard = 2 * time.Second

// watchMembers judges the members of the tree that appeared since the
// last look (a respawned worker, an engine restart, a re-exec'd member:
// by pid and start time), as the launch's tree judgement does, and reports
// a member carrying a protected name with another value at once: through
// Options.Notify, and in the record (Record.Diverged: ps shows
// "diverged"; verify judges the live tree and exits 3). Without moved
// (the tree's events said it changed) it looks at most every watchEvery.
// Call with the tree's lock held.
func (la *Launch) watchMembers(moved bool) {
	w := &la.notes.watch
	if la.Report == nil || !moved && time.Since(w.last) < watchEvery {
		return
	}
	if la.worker.fd >= 0 && pidfd.Exited(la.worker.fd) {
		// The worker exited: Wait looks for its replacement and judges
		// it as the worker (awaitReplacement); the rest of the tree is
		// looked at once it is decided.
		return
	}
	w.last = time.Now()
	if moved {
		treeEventLooks.Add(1)
	}
	p := la.opts.Proc
	tree := la.tree.Members()
	if w.seen == nil {
		w.judged(p, tree)
	}
	var fresh []int
	for _, pid := range tree {
		st, err := p.Stat(pid)
		if err != nil || st.State == 'Z' {
			continue
		}
		if k, ok := w.seen[pid]; !ok || k != imageKey(st) {
			fresh = append(fresh, pid)
			w.seen[pid] = imageKey(st)
		}
	}
	if len(fresh) == 0 {
		return
	}
	v := &verify.Verifier{Proc: p, State: la.State}
	c := verify.CheckFromSpec(la.Spec, la.Env.Expect())
	tc := la.treeCheck(tree, la.worker.Pid)
	r := verify.NewReport(la.Spec.Name)
	v.JudgeTree(r, c, tc)
	for _, pr := range r.Problems {
		if pr.Kind != verify.KindEnvDiverged || w.warned[pr.Subject.Pid] || !slices.Contains(fresh, pr.Subject.Pid) {
			continue
		}
		w.warned[pr.Subject.Pid] = true
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

// imageKey names one image of a process: its start time and where its
// last exec put its environment area (an exec moves it).
func imageKey(st proc.Stat) string {
	return strconv.FormatUint(st.StartTime, 10) + "/" + verify.ExecArea(st)
}
