package launcher

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/childproof/childproof/internal/pidfd"
	"github.com/childproof/childproof/launcher/exectrace"
	"github.com/childproof/childproof/launcher/proctree"
	"github.com/childproof/childproof/launcher/readiness"
	"github.com/childproof/childproof/launcher/runas"
	"github.com/childproof/childproof/launcher/treelook"
	"github.com/childproof/childproof/outcome"
	"github.com/childproof/childproof/proc"
	"github.com/childproof/childproof/verify"
	"golang.org/x/sys/unix"
)

// findAndVerify looks (treelook.Pacer: every 4 ms at first, at once on a
// line or a tree event) until the worker is found and owns its ports,
// then verifies it and waits for readiness. Each look decides, in turn:
// whether the picked worker exited (a lost race or exit 5), which process
// is the worker, whether the tree is gone without one, whether the worker
// owns its ports (then verification and readiness decide the attempt,
// or the worker is picked again), and at the deadline why it was not
// ready.
func (la *Launch) findAndVerify(ctx context.Context, v *verify.Verifier, r *verify.Report) error {
	f := &finder{la: la, v: v, r: r, wfd: -1, attempts: r.Attempts, logPath: r.Log}
	f.polling = time.Now()
	f.deadline = f.polling.Add(la.Spec.ReadyTimeout())
	f.root = la.tree.Root.Pid()
	f.look = &treelook.Looker{Proc: la.opts.Proc, Ports: la.Spec.Ports, Members: func() []int { return la.tree.Members() }, Events: la.events}
	f.pacer = treelook.Pacer{Began: f.polling, Lines: la.notes.findWake, Events: la.events.ChangedCh(), Seen: f.look.Seen}
	defer f.release()
	defer f.look.Close()
	defer func() { la.notes.wake.Close(); la.notes.wake = nil }()
	for {
		if err := ctx.Err(); err != nil {
			return la.interrupted(r, err)
		}
		tree := f.look.List()
		rootExited := la.tree.Root.Exited()
		if err := f.workerExited(tree); err != nil {
			return err
		}
		if !rootExited && !f.look.Changed() {
			// Nothing moved (the same members, execs and listeners) and
			// the last full look is recent: that look's answer stands.
			f.progress()
			if time.Now().After(f.deadline) {
				return f.timedOut(tree)
			}
			f.pacer.Pause()
			continue
		}
		// The questions of this full look about the declared ports'
		// listeners and their holders are asked once each: the
		// listeners Changed just asked are this look's.
		f.k = verify.NewLook(la.opts.Proc)
		f.look.Seed(f.k)
		f.pick(tree)
		if err := f.noWorker(tree, rootExited); err != nil {
			return err
		}
		if f.worker != 0 {
			switch step, err := f.ports(ctx, tree, rootExited); step {
			case findDone:
				return err
			case findAgain:
				continue
			}
		}
		f.progress()
		if time.Now().After(f.deadline) {
			return f.timedOut(tree)
		}
		f.pacer.Pause()
	}
}

// finder is what the looks of findAndVerify share.
type finder struct {
	la *Launch
	v  *verify.Verifier
	// r is the attempt's report (made afresh when the worker is picked
	// again after verification); attempts and logPath are its Attempts
	// and Log, kept for that.
	r        *verify.Report
	attempts int
	logPath  string
	// polling is when the wait began; deadline is polling plus
	// ready.timeout.
	polling, deadline time.Time
	// root is the tree's root pid.
	root int
	// worker is the picked worker (0: none yet) and wfd its pidfd (-1:
	// none).
	worker, wfd int
	// seenForeign is the last listener on a declared port held outside the
	// tree while this attempt waited for its worker.
	seenForeign *verify.Holder
	selector    selectorWatch
	stable      proctree.Stability
	// look is the looks at the tree: its last listing and full look;
	// foreign is how long a stranger has held a declared port no member
	// holds.
	look    *treelook.Looker
	foreign proctree.Stability
	// k is the full look's questions about the declared ports'
	// listeners and their holders, each asked of the kernel once.
	k *verify.Look
	// moved is how long the tree has been the same while another member
	// than the single worker held its port.
	moved proctree.Stability
	// settling is the look (its Sig) that found another member on the
	// single worker's port and waited for the tree to settle, at
	// settlingAt.
	settling   string
	settlingAt time.Time
	// pacer spaces the looks.
	pacer treelook.Pacer
	// pickedInExec is set when the worker was picked while its exec was
	// under way (notes.picked shows no environment area for it).
	pickedInExec bool
}

// settlingRecheck is how long a look that waited for the tree to settle
// stands while nothing moves.
const settlingRecheck = time.Second

// findStep is what a look at the worker's ports decided.
type findStep int

const (
	// findWait: nothing yet; report progress, mind the deadline, look again.
	findWait findStep = iota
	// findAgain: the worker is to be picked again; look again at once.
	findAgain
	// findDone: the attempt is decided, with the error returned (nil: ready).
	findDone
)

// release lets go of what a failed attempt picked (the ranks, the
// worker's pidfd: the next attempt picks anew), or hands the worker's
// pidfd to the Launch, through which Wait watches the worker.
func (f *finder) release() {
	la := f.la
	if la.Report == nil {
		la.closeRanks() // a failed attempt: the next one picks anew
	}
	if f.wfd >= 0 && la.Report == nil {
		unix.Close(f.wfd)
	} else if f.wfd >= 0 {
		la.worker.fd = f.wfd // kept: Wait watches the worker through it
	}
}

// workerExited decides the attempt once the picked worker has exited: a
// lost race when a stranger held a declared port meanwhile (even if it
// has left by now), else exit 5. Nil while it runs.
func (f *finder) workerExited(tree []int) error {
	la := f.la
	if f.worker == 0 || f.wfd < 0 || !pidfd.Exited(f.wfd) {
		return nil
	}
	if f.worker == f.root && la.daemonized() {
		// The launched process was picked and exited leaving its tree
		// running: a daemon that forked out of it (nginx "daemon on",
		// redis --daemonize yes). Pick the worker again from the tree.
		f.repick()
		return nil
	}
	if f.seenForeign == nil && len(la.Spec.Ports) > 0 {
		// One last look: a stranger that took the port after the
		// previous poll (a loaded machine polls late) made the
		// bind fail just as surely as one seen before.
		_, f.seenForeign = proctree.PortState(la.opts.Proc, nil, la.Spec, f.worker, tree)
	}
	if f.seenForeign != nil {
		// A stranger held the port while our worker tried to bind:
		// a lost race, even if the stranger has left by now.
		return la.raceError(f.r, f.seenForeign)
	}
	return la.exitedError(f.r, la.exitWhat(f.worker))
}

// daemonized reports whether the tree, listed afresh (the listing of the
// look may be older than the fork), has a live member other than the
// exited root: what a daemon's fork leaves.
func (la *Launch) daemonized() bool {
	root := la.tree.Root.Pid()
	for _, p := range la.tree.Members() {
		if s, err := la.opts.Proc.Stat(p); p != root && err == nil && s.State != 'Z' {
			return true
		}
	}
	return false
}

// pick picks the worker when none is: the ranks of a job, else the one
// process the selector picks; a worker is kept only with its fingerprint
// and a pidfd on it while it is alive.
func (f *finder) pick(tree []int) {
	la, l := f.la, f.la.Spec
	if f.worker == 0 && la.multiWorker() {
		f.worker = la.pickRanks(tree)
		if f.worker != 0 {
			if fp, fd, err := verify.OpenFingerprint(la.opts.Proc, f.worker); err == nil {
				la.worker.Fingerprint, f.wfd = fp, fd
			} else {
				f.worker = 0
			}
		}
	} else if f.worker == 0 {
		f.worker = proctree.PickWorkerIn(la.opts.Proc, f.k, l, f.root, tree, la.exec.watch.ExecComm)
		if f.worker != 0 {
			if fp, fd, err := verify.OpenFingerprint(la.opts.Proc, f.worker); err == nil {
				la.worker.Fingerprint, f.wfd = fp, fd
				la.notes.picked = proctree.Signature(la.opts.Proc, tree)
				f.pickedInExec = proctree.NoExecAreaIn(la.notes.picked, f.worker)
			} else {
				f.worker = 0
			}
		}
	}
}

// noWorker decides the attempt while no worker is picked: a selector that
// matches none of the port's holders, or a tree that is gone (a lost race
// when a stranger holds or held a declared port, else exit 5). Nil to
// look again.
func (f *finder) noWorker(tree []int, rootExited bool) error {
	la := f.la
	if f.worker == 0 {
		if e := f.selector.check(la, f.k, f.r, tree); e != nil {
			return e
		}
		// A stranger holds a declared port that nothing in a tree that
		// has stopped changing holds: told at once.
		if h := proctree.ForeignHolder(la.opts.Proc, f.k, la.Spec, tree); h != nil && len(proctree.PortOwners(la.opts.Proc, f.k, la.Spec, tree)) == 0 {
			f.seenForeign = h
			if f.foreign.SettledSig(f.look.TreeSig(), selectorQuiet) {
				return la.raceError(f.r, h)
			}
		} else {
			f.foreign = proctree.Stability{}
		}
	}
	if f.worker == 0 && rootExited && len(tree) == 0 {
		if h := proctree.ForeignHolder(la.opts.Proc, f.k, la.Spec, tree); h != nil {
			return la.raceError(f.r, h)
		}
		if f.seenForeign != nil {
			return la.raceError(f.r, f.seenForeign)
		}
		return la.exitedError(f.r, la.exitWhat(f.root))
	}
	return nil
}

// ports looks at the picked worker's declared ports: a foreign holder is
// remembered, and a lost race once the root or the worker has exited; a
// worker that owns them (and is still the one to judge, settledOwner) is
// verified and waited for (verifyAndReady), which decides the attempt
// unless the port moved to another member, when the worker is picked
// again with a fresh report.
func (f *finder) ports(ctx context.Context, tree []int, rootExited bool) (findStep, error) {
	la := f.la
	if f.settling == f.look.Sig() && time.Since(f.settlingAt) < settlingRecheck && !rootExited {
		// Nothing moved since a look found another member on the
		// worker's port and waited for the tree to settle: only time
		// can change that (the holders' fd tables are read again
		// every settlingRecheck).
		if !f.moved.SettledSig(f.look.TreeSig(), selectorQuiet) {
			return findWait, nil
		}
	}
	f.settling = ""
	owned, foreign := proctree.PortState(la.opts.Proc, f.k, la.Spec, f.worker, tree)
	if foreign != nil {
		// The look's listing may be older than a fork: a daemon that
		// forked out of the root and bound since (redis --daemonize
		// yes) is a member of the tree listed afresh, not a stranger
		// (asked afresh).
		tree = la.tree.Members()
		f.k = verify.NewLook(la.opts.Proc)
		owned, foreign = proctree.PortState(la.opts.Proc, f.k, la.Spec, f.worker, tree)
	}
	if foreign != nil {
		f.seenForeign = foreign
		if rootExited || pidfd.Exited(f.wfd) || !owned && f.foreign.SettledSig(f.look.TreeSig(), selectorQuiet) {
			// (A stranger on a port no member holds, in a tree that
			// stopped changing: waiting cannot change the verdict.)
			return findDone, la.raceError(f.r, foreign)
		}
	} else {
		f.foreign = proctree.Stability{}
	}
	if owned {
		var again bool
		if owned, again = f.settledOwner(tree); again {
			f.repick()
			return findAgain, nil
		}
	}
	if !owned {
		return findWait, nil
	}
	// A single worker while another member holds its port, in a tree
	// that has stopped changing, is judged as it is: picking again
	// could not change the verdict.
	single := la.Spec.Worker.N() == 1 && !proctree.HoldsAll(la.opts.Proc, f.k, la.Spec, f.worker, tree)
	final := single && f.moved.SettledSig(f.look.TreeSig(), selectorQuiet)
	if single && !final {
		// Another member holds the port: verifying now would only say
		// so; wait for the tree to settle (or the worker to listen).
		if f.settling != f.look.Sig() {
			f.settling, f.settlingAt = f.look.Sig(), time.Now()
		}
		return findWait, nil
	}
	if f.pickedInExec {
		// Picked in the middle of its exec (its environment area not
		// laid out yet): the tree as picked is the one that exec made,
		// not a tree that moved since (which would be picked again at
		// the next full look, up to 200 ms later).
		la.notes.picked = proctree.Signature(la.opts.Proc, tree)
		f.pickedInExec = false
	}
	err := la.verifyAndReady(ctx, f.v, f.r, f.k, f.worker, f.wfd, f.deadline, final)
	if err != nil && f.worker == f.root && pidfd.Exited(f.wfd) && time.Now().Before(f.deadline) && la.daemonized() {
		// The launched process, picked, forked a daemon and exited
		// while it was verified or probed: pick the worker again.
		err = errRepick
	}
	if !errors.Is(err, errRepick) {
		return findDone, err
	}
	// Another member holds the port now (the picked one
	// re-exec'd and let it go): pick again, at the next change or full
	// look (a verification is no cheap look).
	restore := f.look.Keep()
	f.repick()
	restore()
	*f.r = *verify.NewReport(la.Spec.Name)
	f.r.Attempts, f.r.Log = f.attempts, f.logPath
	return findAgain, nil
}

// settledOwner decides, for a single worker whose ports are owned in the
// tree, whether it is the one to judge now (owned), or another is to be
// picked (again): when another member holds a declared port and the
// worker does not (any more: a master that re-exec'd and let go of it);
// and when the worker shares a socket with other members, once the tree
// has stopped changing (haproxy -W's master re-execs and lets go of it),
// until when it is not judged.
func (f *finder) settledOwner(tree []int) (owned, again bool) {
	la := f.la
	if la.Spec.Worker.N() != 1 || len(la.Spec.Roles) > 0 {
		return true, false
	}
	if !proctree.HoldsAll(la.opts.Proc, f.k, la.Spec, f.worker, tree) && f.pickedAnother(tree) {
		return false, true
	}
	if !proctree.SharesSocket(la.opts.Proc, f.k, la.Spec, f.worker, tree) {
		return true, false
	}
	// Who holds the socket must have stopped changing, not the whole
	// tree: a pre-fork master that recycles its workers under load
	// never has a quiet tree.
	owners := proctree.OwnerSignature(la.opts.Proc, f.k, la.Spec, f.worker, tree)
	if la.notes.settled == owners {
		return true, false
	}
	if !f.stable.SettledSig(owners, preforkQuiet) {
		return false, false
	}
	la.notes.settled = owners
	if f.pickedAnother(tree) {
		return false, true
	}
	return true, false
}

// pickedAnother reports whether the selector picks another process than
// the worker now.
func (f *finder) pickedAnother(tree []int) bool {
	again := proctree.PickWorker(f.la.opts.Proc, f.la.Spec, f.root, tree, f.la.exec.watch.ExecComm)
	return again != f.worker && again != 0
}

// repick lets go of the picked worker, to pick one anew.
func (f *finder) repick() {
	unix.Close(f.wfd)
	f.worker, f.wfd = 0, -1
	f.stable = proctree.Stability{}
	f.look.Forget()
	f.settling = ""
}

// progress reports the wait: for the worker, or for it to listen.
func (f *finder) progress() {
	la := f.la
	if la.opts.Progress == nil {
		return
	}
	p := la.progressBase(f.r.Attempts, f.polling)
	p.Phase, p.Worker = PhaseWorker, f.worker
	if f.worker != 0 {
		p.Phase, p.Comm = PhaseListen, la.worker.Comm
	}
	la.progress(p)
}

// timedOut is the failure at the deadline: a lost race when a stranger
// holds a declared port, a selector that matches none of the port's
// holders, the worker that never appeared, or one that did not listen.
func (f *finder) timedOut(tree []int) error {
	la, l := f.la, f.la.Spec
	k := verify.NewLook(la.opts.Proc)
	if h := proctree.ForeignHolder(la.opts.Proc, k, la.Spec, tree); h != nil {
		return la.raceError(f.r, h)
	}
	// (A listener held by someone else was the real story: a
	// race, above.)
	if f.worker == 0 && (l.Worker.Comm != "" || l.Worker.Exe != "") {
		if owners := proctree.PortOwners(la.opts.Proc, k, la.Spec, tree); len(owners) > 0 {
			return la.selectorError(f.r, owners, true)
		}
	}
	if f.worker == 0 {
		return f.neverAppeared(tree)
	}
	return la.notReadyError(f.r, fmt.Sprintf("the worker (pid %d, %s) did not listen on %s", f.worker, la.worker.Comm, portList(l)))
}

// neverAppeared is the not-ready failure of a worker that never appeared,
// saying what the selector looked for (and what the tree runs instead);
// it is retried.
func (f *finder) neverAppeared(tree []int) error {
	la, l := f.la, f.la.Spec
	what := "the worker never appeared"
	switch {
	case l.Worker.Comm != "":
		what += fmt.Sprintf(": no process with comm %q in the launched tree", l.Worker.Comm)
	case l.Worker.Exe != "":
		what += fmt.Sprintf(": no process with exe %q in the launched tree", l.Worker.Exe)
	case len(l.Ports) > 0:
		what = fmt.Sprintf("nothing in the launched tree listens on port %d", l.Ports[0].Number)
	case len(l.Dispatch) > 0:
		what += ": the dispatch script did not exec a worker (declare the worker's comm or a port)"
	}
	e := la.notReadyError(f.r, what)
	if l.Worker.Comm != "" || l.Worker.Exe != "" {
		if seen := la.treeComms(tree); seen != "" {
			e.Other = seen
			e.Hint = "the launched tree runs " + seen + ": if one of them is the worker, the selector is wrong, not the timeout; else " + e.Hint
		}
	}
	e.Retry = true
	return e
}

// raceError is the failure of an attempt whose port a newcomer took
// between the preflight and our worker's bind: exit 4, retried.
func (la *Launch) raceError(r *verify.Report, h *verify.Holder) *Error {
	if f := testHookRace.Load(); f != nil {
		(*f)(la.Spec.Name)
	}
	r.Add(verify.KindPortForeign, "%s", h.Census(la.opts.Proc))
	r.SetOutcome(outcome.Foreign)
	r.Tail = la.tail(10)
	return &Error{Outcome: outcome.Foreign, Retry: true, Report: r,
		Msg:  fmt.Sprintf("port %d was taken by a process childproof did not start: %s", h.Addr.Port(), h.Census(la.opts.Proc)),
		Hint: "childproof never signals a process it did not start; stop that process yourself or pick another port"}
}

// testHookRace, when a test sets it, is called with the launch's name each
// time an attempt is judged a lost race: a fault test holds its newcomer on
// the port until childproof has seen it, instead of for a fixed time that a
// loaded machine's late poll can outlast. Nil outside tests.
var testHookRace atomic.Pointer[func(name string)]

// verifyAndReady decides the attempt of a worker that owns its ports:
// verification on the worker, readiness (the port answers, or a portless
// worker settles, then what Options.Ready adds), a last look that the
// worker still owns its ports and is the process it was, running the
// image that was verified (a worker that exec'd across the probe is
// judged again on its new one), then the record. errRepick: the port moved to another member, pick again
// (never when final: the tree has stopped changing). k is the look that
// found the worker owning its ports.
func (la *Launch) verifyAndReady(ctx context.Context, v *verify.Verifier, r *verify.Report, k *verify.Look, worker, wfd int, deadline time.Time, final bool) error {
	repickUntil := deadline
	if final {
		repickUntil = time.Time{} // judged as it is
	}
	// The worker's records are read through descriptors held on it for
	// the rest of its decision (its stat read again by one pread, the
	// others opened relative to its /proc directory), those of the
	// process behind wfd.
	pw, release := la.opts.Proc.HoldWhile(worker, wfd)
	defer release()
	hv := *v
	hv.Proc = pw
	v = &hv
	images := la.workerImagesWith(worker, verify.Image(pw, worker))
	c, released, err := la.verifyOnWorker(ctx, v, r, k, worker, wfd, repickUntil)
	if err != nil {
		return err
	}
	if err := la.probeReady(ctx, r, c, worker, wfd, deadline); err != nil {
		return err
	}
	if len(la.Spec.Ports) == 0 {
		proctree.Settle(la.opts.Proc, worker, wfd, released, deadline)
	}
	if err := la.waitAdded(ctx, r, worker, wfd, deadline); err != nil {
		return err
	}
	image, err := la.stillTheWorker(v, r, c, k, worker, wfd, repickUntil)
	if err != nil {
		return err
	}
	if pid := proctree.Reexeced(images, la.workerImagesWith(worker, image)); pid != 0 {
		// A worker exec'd since it was verified (it bound, then
		// re-exec'd itself keeping the socket): what was verified is
		// not what runs. Judged again on its new image.
		if time.Now().Before(deadline) && !pidfd.Exited(wfd) {
			return errRepick
		}
		return la.notReadyError(r, fmt.Sprintf("worker pid %d exec'd again during readiness, and its new image could not be judged before the deadline", pid))
	}
	r.Ready, r.Verified = true, true
	r.SetOutcome(outcome.OK)
	la.Report = r
	return la.record(worker)
}

// verifyOnWorker verifies the worker on its exec-time evidence (and its
// credential, ranks and equal matches), then stops tracing, and decides
// what the findings mean: errRepick for a port that moved to another
// member (or a "foreign" holder forked after the tree was listed), exit 5
// for a worker that exited while it was read, else the failure the
// findings judge. Its port check is one with look k, which found the
// worker owning its ports. It returns the check and when tracing was let
// go.
func (la *Launch) verifyOnWorker(ctx context.Context, v *verify.Verifier, r *verify.Report, k *verify.Look, worker, wfd int, repickUntil time.Time) (verify.Check, time.Time, error) {
	l := la.Spec
	c := verify.CheckFromSpec(l, la.Env.Expect())
	c.Root = la.tree.Root.Pid()
	c.Worker = worker
	c.Tree = la.tree.Members()
	c.NoReady = true
	c.AnyMember = l.Worker.N() > 1
	c.Owners = la.rankOwners()
	ev, ok := la.exec.watch.Evidence(worker)
	if !ok && worker != c.Root {
		// A daemon forked out of the launched process: its environment
		// is the image's it was forked from — only while it still runs
		// that image (same program, same environment block): a child
		// that has exec'd since, whose exec the tracer has not reported
		// yet, is not judged by its parent's block.
		if iev, iok := la.exec.watch.Inherited(worker); iok && exectrace.SameImage(la.opts.Proc, worker, iev) {
			ev, ok = iev, true
		}
	}
	if !ok && worker != c.Root {
		// Forked from the launched process after the tracer let go of
		// it (nginx judged in the moment between its bind and its
		// daemon's fork, then re-picked once it exited): the rule a
		// recorded worker's daemon is judged by (proctree.ForkedFrom) —
		// the root's exec'd image, its environment block at the same
		// area, started after the root — gives it the root's block.
		if rev, rok := la.exec.watch.Evidence(c.Root); rok && proctree.ForkedOf(la.opts.Proc, worker, rev.Exe, rev.Area, la.tree.Root.FP.StartTime) {
			ev, ok = rev, true
		}
	}
	if ok {
		c.ExecEnv = &verify.ExecEnv{Vars: ev.Vars, Exe: ev.Exe, Area: ev.Area}
		la.exec.env = c.ExecEnv
	}
	vc := c
	if len(c.Tree) > 0 && c.Tree[0] == c.Root {
		// The port check before the probe is part of the look that found
		// the worker owning its ports (verify.Verify's own look asks in
		// the root's network namespace, as k does of a tree listed root
		// first): its listeners and holders are not asked again.
		vc.Look = k
	}
	vr := v.Verify(ctx, vc)
	if cred, _ := runas.Credential(l); cred != nil {
		runas.Check(v.Proc, vr, cred, worker)
	}
	la.verifyRanks(ctx, v, c, vr)
	v.JudgeTree(vr, c, la.treeCheck(c.Tree, worker))
	la.notes.watch.Judged(v.Proc, c.Tree)
	la.equalMatches(worker, c.Tree, vr)
	// The worker is verified on its exec-time evidence: stop tracing
	// before readiness, which may take minutes. A launch that failed
	// stays traced until its tree is stopped (abort): a daemon forked
	// meanwhile is seen forked, and stopped with it.
	if len(vr.Problems) == 0 || movedPort(vr) || vr.Has(verify.KindPortForeign) {
		la.exec.watch.Detach()
	}
	released := time.Now()
	vr.Attempts, vr.Log = r.Attempts, r.Log
	if (movedPort(vr) || vr.Has(verify.KindPortForeign) && proctree.ForeignHolder(la.opts.Proc, nil, la.Spec, la.tree.Members()) == nil) && time.Now().Before(repickUntil) && !pidfd.Exited(wfd) {
		// (A "foreign" holder that is a member of the tree now was
		// forked after the tree was listed: look again.)
		return c, released, errRepick
	}
	*r = *vr
	r.Ready = false
	if len(r.Problems) > 0 {
		if pidfd.Exited(wfd) && onlyGone(r.Problems) {
			// The worker exited while it was being read: a check that
			// found it gone, or its port closed, is no finding about
			// it; it exited before it was ready.
			r.Problems = nil
			return c, released, la.exitedError(r, la.exitWhat(worker))
		}
		r.Verified = false
		r.SetOutcome(r.Judged())
		return c, released, &Error{Outcome: r.Outcome, Report: r, Msg: r.Failure(), Tail: la.withTail(r), Hint: hintFor(r, l), Fix: FixReport, Spec: l}
	}
	return c, released, nil
}

// stillTheWorker decides, once the worker is ready, that the answer is
// evidence: the owner of the ports must still be the worker (else
// errRepick within the deadline, or the failure "after readiness"), and
// the worker the process it was (its exe, comm and uid taken again: it
// may have exec'd since it was picked); a tree that moved is errRepick, a
// rank that exited exit 5. It returns the image the worker runs
// (verify.Image), read with its exe, comm and uid. Its look at the ports
// is a new one, which asks a holder first about the fd where look k found
// it holding the port.
func (la *Launch) stillTheWorker(v *verify.Verifier, r *verify.Report, c verify.Check, k *verify.Look, worker, wfd int, deadline time.Time) (string, error) {
	l := la.Spec
	// The answer is no evidence by itself: the owner must still be the worker.
	r2 := verify.NewReport("")
	// One listing is this last look's: the ports' owners and whether the
	// tree moved since the pick are judged on it.
	var tree []int
	if len(l.Ports) > 0 {
		tree = la.tree.Members()
	}
	if len(l.Ports) > 0 && !v.CheckPortsIn(r2, c, worker, tree, k.Again(v.Proc)) || len(r2.Problems) > 0 {
		if (movedPort(r2) || r2.Has(verify.KindPortForeign) && proctree.ForeignHolder(la.opts.Proc, nil, la.Spec, la.tree.Members()) == nil) && time.Now().Before(deadline) && (!pidfd.Exited(wfd) || worker == la.tree.Root.Pid() && la.daemonized()) {
			// (The launched process forked the daemon that holds
			// the port and exited: pick the worker again.)
			return "", errRepick
		}
		r.Problems = append(r.Problems, r2.Problems...)
		r.SetOutcome(r.Judged())
		return "", &Error{Outcome: r.Outcome, Report: r, Msg: "after readiness: " + r.Problems[0].Message, Tail: la.withTail(r)}
	}
	if pidfd.Exited(wfd) {
		return "", la.exitedError(r, la.exitWhat(worker))
	}
	// exe, comm and uid are taken now that the worker is verified: it may
	// have exec'd since it was picked (a shim, a dispatcher that execs
	// twice) — the same process, known by pid, start time and pidfs inode,
	// read through the pidfd held on it since the pick.
	fp, image, err := verify.FingerprintImagePidfd(v.Proc, worker, wfd)
	if err == nil && la.worker.Matches(fp) {
		la.worker.Fingerprint = fp
		if r.Worker != nil {
			r.Worker.Comm, r.Worker.Exe, r.Worker.UID = fp.Comm, fp.Exe, fp.UID
		}
	} else {
		return "", la.exitedError(r, la.exitWhat(worker))
	}
	if l.Worker.N() == 1 && len(l.Roles) == 0 && la.treeMoved(v.Proc, worker, tree) && time.Now().Before(deadline) {
		return "", errRepick
	}
	if gone := la.goneRank(); gone != 0 {
		return "", la.exitedError(r, fmt.Sprintf("worker pid %d of the job exited before it was ready", gone))
	}
	return image, nil
}

// errRepick says that the picked worker lost its declared port to another
// member of the tree after it was picked (haproxy -W's master re-exec'd
// into wait mode and let the socket go to its worker): the worker is
// picked again, within ready.timeout.
var errRepick = errors.New("the port moved to another member of the tree: pick the worker again")

// movedPort reports whether r's only problems are declared ports held by
// another member of the tree.
func movedPort(r *verify.Report) bool {
	if len(r.Problems) == 0 {
		return false
	}
	for _, p := range r.Problems {
		if p.Kind != verify.KindPortNotOwned {
			return false
		}
	}
	for _, pc := range r.Ports {
		if !pc.Owned && pc.OwnerPid == 0 {
			return false
		}
	}
	return true
}

// progress reports p through Options.Progress when it differs from what
// was reported last.
func (la *Launch) progress(p Progress) {
	if la.opts.Progress == nil || p == la.notes.lastProgress {
		return
	}
	la.notes.lastProgress = p
	la.opts.Progress(p)
}

// progressBase is the Progress of this attempt with Phase and the
// worker left to fill in.
func (la *Launch) progressBase(attempt int, started time.Time) Progress {
	l := la.Spec
	p := Progress{Name: l.Name, Attempt: attempt, HTTP: l.Ready.HTTP, Started: started, Timeout: l.ReadyTimeout(), Log: la.LogPath()}
	if la.tree != nil && la.tree.Root != nil {
		p.Root = la.tree.Root.Pid()
	}
	if len(l.Ports) > 0 {
		p.Address = l.Ports[0].HostPort()
	}
	return p
}

// onlyGone reports whether every problem is what reading an exited worker
// yields: the worker itself gone when it was read, an environ that could
// not be read because the process is gone, or a port it no longer holds. A value read before it exited is evidence
// and stays a finding.
func onlyGone(ps []verify.Problem) bool {
	for _, p := range ps {
		switch {
		case p.Kind == verify.KindPortNotOwned, p.Kind == verify.KindExited:
		case (p.Kind == verify.KindEnvMissing || p.Kind == verify.KindEnvUnreadable) && errors.Is(p.Err, proc.ErrGone):
		default:
			return false
		}
	}
	return true
}

// waitAdded waits for the readiness Options.Ready adds beyond the
// spec's: a line of output matching Ready.Log, then Ready.Func returning
// nil, within the same deadline; a worker that exits meanwhile is the
// exit-5 failure at once.
func (la *Launch) waitAdded(ctx context.Context, r *verify.Report, worker, wfd int, deadline time.Time) error {
	rd := la.opts.Ready
	progress := func(last string) {
		p := la.progressBase(r.Attempts, deadline.Add(-la.Spec.ReadyTimeout()))
		p.Phase, p.Worker, p.Comm, p.Last = PhaseReady, worker, la.worker.Comm, last
		la.progress(p)
	}
	if rd.Log != nil {
		what := fmt.Sprintf("no line of its output matched Options.Ready.Log %s", quoteRe(rd.Log))
		if rd.LogCount > 1 {
			what = fmt.Sprintf("fewer than %d lines of its output matched Options.Ready.Log %s", rd.LogCount, quoteRe(rd.Log))
		}
		if err := la.waitLine(ctx, r, worker, wfd, deadline, la.out.HasMatched, what); err != nil {
			return err
		}
	}
	if rd.Func != nil {
		end, last := la.readyWorker(worker, wfd).UntilFunc(ctx, deadline, rd.Func,
			func(err error) { progress("Options.Ready.Func: " + err.Error()) })
		switch end {
		case readiness.Exited:
			return la.exitedError(r, la.exitWhat(worker))
		case readiness.Interrupted:
			return la.interrupted(r, ctx.Err())
		case readiness.TimedOut:
			return la.notReadyError(r, "Options.Ready.Func: "+last.Error())
		}
	}
	return nil
}

// interrupted is the failure of a start whose context ended (err) before
// the worker was ready: it says the context ended, with the context's
// error after it (context.DeadlineExceeded: a test's deadline). The
// childproof command, whose context ends at Ctrl-C or SIGTERM, words its
// own from the outcome.
func (la *Launch) interrupted(r *verify.Report, err error) *Error {
	r.Add(verify.KindInterrupted, "the start's context ended (%v) before the worker was ready; what was started is stopped", err)
	r.SetOutcome(outcome.Interrupted)
	return &Error{Outcome: outcome.Interrupted, Msg: "the start's context ended before the worker was ready; what was started is stopped", Tail: la.withTail(r), Report: r, Err: err, Name: la.Spec.Name}
}
