package launcher

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/childproof/childproof/internal/fdwait"
	"github.com/childproof/childproof/launcher/agentrestart"
	"github.com/childproof/childproof/launcher/journal"
	"github.com/childproof/childproof/launcher/mask"
	"github.com/childproof/childproof/launcher/proctree"
	"github.com/childproof/childproof/launcher/runas"
	"github.com/childproof/childproof/verify"
	"golang.org/x/sys/unix"
)

// respawnLookEvery is how often foreground supervision looks for the
// replacement of a worker that exited while its tree runs on (a node
// cluster primary, gunicorn's arbiter or a uWSGI master respawns it
// within milliseconds); the proc connector's events wake it sooner.
const respawnLookEvery = 50 * time.Millisecond

// awaitReplacement is foreground supervision after the worker gone (pid)
// exited while its tree runs on: it looks in the live tree for the
// process the launch's selector picks (proctree.ReselectPid: a node cluster,
// gunicorn --max-requests or uWSGI respawning it) until one is there,
// the tree has no live process left (nothing can respawn it), a rank
// agent in it never restarts a rank (agentWillNotRestart), Stop ended
// the launch, or the spec's ready.timeout ran out since the exit (the
// time a worker has to appear at all). A replacement becomes the launch's
// worker (adopt) and is judged at once; it returns its pid, else 0.
func (la *Launch) awaitReplacement(gone int) int {
	t, te := la.tree, la.events
	deadline := time.Now().Add(la.Spec.ReadyTimeout())
	var fds *fdwait.Set
	defer func() { fds.Close() }()
	for first := true; ; first = false {
		la.mu.Lock()
		if la.finished {
			la.mu.Unlock()
			return 0
		}
		t.ReapOrphans(0)
		var live []int
		for _, pid := range t.Live() {
			if pid != gone {
				live = append(live, pid)
			}
		}
		if first && la.agentWillNotRestart(live) {
			la.mu.Unlock()
			return 0
		}
		pid := 0
		if len(live) > 0 {
			pid = la.reselectForeground(live)
		}
		if pid != 0 && la.adopt(gone, pid, live) {
			la.mu.Unlock()
			return pid
		}
		la.mu.Unlock()
		if len(live) == 0 || !time.Now().Before(deadline) {
			return 0
		}
		if fds == nil {
			fds = fdwait.New(te.WatchFd())
		}
		until := time.Now().Add(respawnLookEvery)
		if end := deadline.Add(time.Millisecond); end.Before(until) {
			until = end
		}
		fds.Wait(context.Background(), until)
		te.DrainWatch()
	}
}

// agentWillNotRestart reports whether a live member of the tree is a rank
// agent that never replaces a rank that exited (agentrestart.Never: torchrun
// with no restarts): the job is over, and waiting ready.timeout for a
// replacement would only keep its allocation. Call with the tree's lock
// held.
func (la *Launch) agentWillNotRestart(live []int) bool {
	for _, pid := range live {
		if argv, err := la.opts.Proc.Cmdline(pid); err == nil && agentrestart.Never(argv) {
			return true
		}
	}
	return false
}

// reselectForeground is proctree.ReselectPid for the running launch: a job's
// workers (count = N, roles) only once all of them are there, picked
// afresh with their pidfds (pickRanks). Call with the tree's lock held.
func (la *Launch) reselectForeground(live []int) int {
	if la.multiWorker() {
		return la.pickRanks(live)
	}
	return proctree.ReselectPid(la.opts.Proc, la.Spec, live)
}

// adopt makes pid, which the selector picked in the live tree after the
// worker gone exited, the launch's worker: its pidfd is what Wait watches
// now, the record names it (its evidence is its live block: the tracer
// saw no exec of it), and it is judged as verify SPEC judges a
// re-selected worker — its environment, and its user — without a
// readiness probe or its ports (a respawned pre-fork worker shares its
// master's socket; verify judges them). A problem is told through
// Options.Notify and recorded (Record.Diverged: ps shows "diverged",
// verify judges the live tree and exits 3); the launch keeps running, as
// watching does. False when pid is gone already. Call with the tree's
// lock held.
func (la *Launch) adopt(gone, pid int, live []int) bool {
	p := la.opts.Proc
	fp, err := verify.TakeFingerprint(p, pid)
	if err != nil {
		return false
	}
	fd, state, _ := fp.Open(p)
	if state != verify.Alive {
		return false
	}
	if la.worker.fd >= 0 {
		unix.Close(la.worker.fd)
	}
	la.worker = workerRef{Fingerprint: fp, fd: fd}
	la.exec.env = nil
	// Judged here as the worker, not again by watchMembers.
	la.notes.watch.Saw(p, pid)
	secrets := la.Env.Secrets()
	if la.Record != nil {
		la.Record.Worker = mask.Exe(secrets, fp)
		la.Record.ExecEnv, la.Record.ExecExe, la.Record.ExecArea = nil, "", ""
		if len(la.ranks) > 0 {
			la.Record.Ranks = la.Record.Ranks[:0]
			for _, rk := range la.ranks {
				la.Record.Ranks = append(la.Record.Ranks, journal.RankOf(la.State.Store, secrets, p, rk.journal()))
			}
		}
	}
	v := &verify.Verifier{Proc: p, State: la.State}
	c := verify.CheckFromSpec(la.Spec, la.Env.Expect())
	c.Root, c.Worker, c.Tree = pid, pid, live
	if root := la.tree.Root.Pid(); slices.Contains(live, root) {
		c.Root = root
	}
	c.Ports, c.Owners, c.NoReady = nil, nil, true
	r := v.Verify(context.Background(), c)
	for _, rk := range la.ranks {
		if rk.fp.Pid == pid {
			continue
		}
		rc := c
		rc.Worker = rk.fp.Pid
		r.AddProblemsOf(v.Verify(context.Background(), rc), fmt.Sprintf("worker pid %d", rk.fp.Pid))
	}
	runas.CheckLaunch(p, la.Spec, pid, r)
	verdict := "verified"
	if len(r.Problems) > 0 {
		verdict = r.Problems[0].Message
	}
	msg := secrets.Text(fmt.Sprintf("the worker (pid %d) exited and its tree started another: pid %d (%s) is the worker now, re-selected and judged by its own environment: %s", gone, pid, fp.Comm, verdict))
	if la.opts.Notify != nil {
		la.opts.Notify(msg)
	}
	if la.Record != nil {
		if len(r.Problems) > 0 && la.Record.Diverged == "" {
			la.Record.Diverged = "diverged after it was verified: " + secrets.Text(r.Problems[0].Message)
		}
		la.State.Save(la.Record)
	}
	return true
}
