package launcher

import (
	"github.com/childproof/childproof/launcher/journal"
	"github.com/childproof/childproof/outcome"
	"github.com/childproof/childproof/verify"
)

// newRecord is the record of this launch with worker as its worker: a
// provisional one (pending) stands until the worker is verified.
func (la *Launch) newRecord(worker verify.Fingerprint, pending bool) *Record {
	return la.newRecordOf(la.tree.Root.Cmd.Args, la.tree.Root.FP, worker, pending)
}

// newRecordOf is newRecord for argv, with root as the launch root
// (journal.New).
func (la *Launch) newRecordOf(argv []string, root, worker verify.Fingerprint, pending bool) *Record {
	return journal.New(la.State.Store, la.journalLaunch(), argv, root, worker, pending)
}

// journalLaunch is what package journal builds the launch's record from.
func (la *Launch) journalLaunch() journal.Launch {
	t := la.tree
	l := journal.Launch{
		Spec: la.Spec, Secrets: la.Env.Secrets(),
		SpecHash: la.opts.SpecHash, Detach: la.opts.Detach, Vars: la.opts.Vars,
		Dir: la.dir(), Log: la.LogPath(), Round: la.Round(),
		Pgid: t.Pgid, Cgroup: t.Cgroup, Marker: t.Marker,
		Proc: la.opts.Proc,
	}
	if rp := la.pipe.RelayProcess(); rp != nil {
		l.Relay = rp.Pid
	}
	return l
}

// journal writes the launch's record before its tree exists: pending,
// with no root or worker yet, but with what finds and stops the tree —
// its cgroup and its marker. From the moment the tree can outlive
// childproof (a SIGKILL between the fork and recordPending) it is in a
// record that ps shows and stop ends. Written synchronously: a launch
// that cannot record itself starts nothing.
func (la *Launch) journal(argv []string) error {
	rec := la.newRecordOf(argv, verify.Fingerprint{}, verify.Fingerprint{}, true)
	if err := la.State.SaveLaunched(rec); err != nil {
		return &Error{Outcome: outcome.Usage, Msg: "cannot record the launch", Err: err}
	}
	la.notes.pending = true
	return nil
}

// recordPending writes the provisional record (Record.Pending) once the
// tree exists, so that a childproof killed mid-launch — whose detached
// tree lives on — leaves a record that ps reports and stop acts on.
func (la *Launch) recordPending() {
	// The root may still exec (a dispatch script, sh -c … exec): without
	// its exe the fingerprint is pid, start time, uid and pidfs inode,
	// which exec keeps.
	root := la.tree.Root.FP
	root.Exe = ""
	rec := la.newRecord(root, true)
	rec.Root = root
	// Sealed and written while the launch looks for its worker (the
	// worker starts meanwhile); pendingDone joins it before the record
	// file is touched again.
	done := make(chan bool, 1)
	la.notes.pendingWrite = done
	go func() { done <- la.State.SaveLaunched(rec) == nil }()
}

// pendingDone waits until the provisional record is written (or failed).
func (la *Launch) pendingDone() {
	if la.notes.pendingWrite != nil {
		// The journal record stands even if this update failed.
		la.notes.pending = <-la.notes.pendingWrite || la.notes.pending
		la.notes.pendingWrite = nil
	}
}

// restoreRecord puts back the record file as it was before a failed
// launch wrote its provisional record (prev nil: there was none).
func (la *Launch) restoreRecord(prev []byte) {
	la.pendingDone()
	if !la.notes.pending {
		return
	}
	la.State.RestoreRecord(la.Spec.Name, prev)
	la.notes.pending = false
}

// record writes the launch's record once its worker is verified: digests
// of the overrides and of the worker's whole environ, never values
// (journal.Verified).
func (la *Launch) record(worker int) error {
	la.pendingDone()
	rec := la.newRecord(la.worker.Fingerprint, false)
	w := journal.Worker{Pid: worker, Overrides: la.Env.Overrides, Given: la.Env.Given, Vars: la.Env.Vars, Exec: la.exec.env}
	for _, rk := range la.ranks {
		w.Ranks = append(w.Ranks, rk.journal())
	}
	if la.Report != nil {
		for _, m := range la.Report.Members {
			ev, ok := la.exec.watch.Evidence(m.Pid)
			if !ok || m.Evidence != verify.EvidenceExec {
				continue
			}
			w.Members = append(w.Members, journal.Member{Pid: m.Pid, Exec: verify.ExecEnv{Vars: ev.Vars, Exe: ev.Exe, Area: ev.Area}})
		}
	}
	journal.Verified(la.State.Store, la.journalLaunch(), rec, w)
	if err := la.State.SaveLaunched(rec); err != nil {
		return &Error{Outcome: outcome.Usage, Msg: "cannot record the launch", Err: err}
	}
	la.notes.pending = false
	la.Record = rec
	return nil
}

// journal is rk as package journal records it.
func (rk rank) journal() journal.Rank { return journal.Rank{Role: rk.role, FP: rk.fp, Exec: rk.ev} }
