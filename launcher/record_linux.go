package launcher

import (
	"os"
	"time"

	"github.com/childproof/childproof/launcher/mask"
	"github.com/childproof/childproof/launcher/statedir"
	"github.com/childproof/childproof/outcome"
	"github.com/childproof/childproof/proc"
	"github.com/childproof/childproof/verify"
)

// newRecord is the record of this launch with worker as its worker: a
// provisional one (pending) stands until the worker is verified.
func (la *Launch) newRecord(worker verify.Fingerprint, pending bool) *Record {
	return la.newRecordOf(la.tree.Root.Cmd.Args, la.tree.Root.FP, worker, pending)
}

// newRecordOf is newRecord for argv, with root as the launch root.
func (la *Launch) newRecordOf(argv []string, root, worker verify.Fingerprint, pending bool) *Record {
	l, t := la.Spec, la.tree
	secrets := la.Env.Secrets()
	rec := &Record{
		Name:     l.Name,
		SpecPath: l.SpecPath, SpecHash: la.opts.SpecHash, Argv: secrets.Argv(argv), Dir: secrets.Text(la.dir()),
		Started: time.Now().UTC(), Detached: la.opts.Detach,
		Root: mask.Exe(secrets, root), Worker: mask.Exe(secrets, worker), Pgid: t.Pgid, Cgroup: t.Cgroup, Marker: t.Marker,
		Env: map[string]string{}, WorkerEnv: map[string]string{},
		Log:     la.LogPath(),
		Pending: pending,
		Round:   la.Round(),
	}
	rec.Vars = la.recordVars(secrets)
	rec.Oneshot = l.Oneshot
	if l.Stop.Signal != "" {
		rec.StopSignal = l.Stop.Signal
	}
	if l.Stop.Timeout > 0 {
		rec.StopTimeout = l.Stop.Timeout.String()
	}
	if !la.opts.Detach {
		rec.Supervisor = os.Getpid()
	}
	rec.Secrets = la.State.SecretDigests(secrets)
	if rp := la.pipe.RelayProcess(); rp != nil {
		if fp, err := verify.TakeFingerprint(la.opts.Proc, rp.Pid); err == nil {
			fp = mask.Exe(secrets, fp)
			rec.Relay = &fp
		}
	}
	for _, pt := range l.Ports {
		rec.Ports = append(rec.Ports, RecordPort{Number: pt.Number, Address: pt.PortAddress()})
	}
	rec.Selector = statedir.SelectorOf(l, secrets)
	return rec
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
// of the overrides and of the worker's whole environ, never values.
func (la *Launch) record(worker int) error {
	la.pendingDone()
	l := la.Spec
	rec := la.newRecord(la.worker.Fingerprint, false)
	for _, n := range l.Protected() {
		if v, ok := la.Env.Overrides[n]; ok {
			rec.Env[n] = la.State.Digest(n, v)
		} else {
			rec.Env[n] = ""
		}
	}
	for n, v := range la.Env.Overrides {
		rec.Env[n] = la.State.Digest(n, v)
	}
	for n := range la.Env.Given {
		if rec.Given == nil {
			rec.Given = map[string]string{}
		}
		rec.Given[n] = la.State.Digest(n, la.Env.Vars[n])
	}
	// The worker's environment: the block captured at its exec where
	// there is one (its live block may be a process title by now).
	var vars []proc.Var
	if la.exec.env != nil {
		vars = la.exec.env.Vars
		rec.ExecExe, rec.ExecArea = la.Env.Secrets().Text(la.exec.env.Exe), la.exec.env.Area
		rec.ExecEnv = map[string]string{}
	} else if live, err := la.opts.Proc.EnvironAfterExec(worker); err == nil {
		vars = live
	}
	for _, v := range vars {
		if v.Name == MarkerVar {
			// childproof's own marker, new at every launch: in the
			// record's Marker, not the launch's environment.
			continue
		}
		if _, seen := rec.WorkerEnv[v.Name]; !seen {
			rec.WorkerEnv[v.Name] = la.State.Digest(v.Name, v.Value)
			if rec.ExecEnv != nil {
				rec.ExecEnv[v.Name] = rec.WorkerEnv[v.Name]
			}
		}
	}
	for _, rk := range la.ranks {
		rec.Ranks = append(rec.Ranks, la.recordRank(rk))
	}
	if len(rec.Ranks) > 0 {
		// The first rank is the worker: the same evidence.
		rec.Ranks[0].WorkerEnv, rec.Ranks[0].ExecEnv = rec.WorkerEnv, rec.ExecEnv
		rec.Ranks[0].ExecExe, rec.Ranks[0].ExecArea = rec.ExecExe, rec.ExecArea
	}
	rec.Members = la.recordMembers()
	if err := la.State.SaveLaunched(rec); err != nil {
		return &Error{Outcome: outcome.Usage, Msg: "cannot record the launch", Err: err}
	}
	la.notes.pending = false
	la.Record = rec
	return nil
}

// recordRank is the record of one rank: its environment's digests, from
// the block captured at its exec where there is one.
func (la *Launch) recordRank(rk rank) RecordRank {
	secrets := la.Env.Secrets()
	out := RecordRank{Role: rk.role, Worker: mask.Exe(secrets, rk.fp), WorkerEnv: map[string]string{}}
	if fp, err := verify.TakeFingerprint(la.opts.Proc, rk.fp.Pid); err == nil && rk.fp.Matches(fp) {
		out.Worker = mask.Exe(secrets, fp)
	}
	var vars []proc.Var
	if rk.ev != nil {
		vars = rk.ev.Vars
		out.ExecExe, out.ExecArea = secrets.Text(rk.ev.Exe), rk.ev.Area
		out.ExecEnv = map[string]string{}
	} else if live, err := la.opts.Proc.EnvironAfterExec(rk.fp.Pid); err == nil {
		vars = live
	}
	for _, v := range vars {
		if _, seen := out.WorkerEnv[v.Name]; !seen {
			out.WorkerEnv[v.Name] = la.State.Digest(v.Name, v.Value)
			if out.ExecEnv != nil {
				out.ExecEnv[v.Name] = out.WorkerEnv[v.Name]
			}
		}
	}
	return out
}

// recordMembers is the record of the members the launch judged whose
// exec the tracer captured: the digests of the protected names their
// exec received.
func (la *Launch) recordMembers() []RecordMember {
	if la.Report == nil {
		return nil
	}
	var out []RecordMember
	for _, m := range la.Report.Members {
		ev, ok := la.exec.watch.Evidence(m.Pid)
		if !ok || m.Evidence != verify.EvidenceExec {
			continue
		}
		st, err := la.opts.Proc.Stat(m.Pid)
		if err != nil {
			continue
		}
		rm := RecordMember{Pid: m.Pid, StartTime: st.StartTime, ExecEnv: map[string]string{}, ExecExe: la.Env.Secrets().Text(ev.Exe), ExecArea: ev.Area}
		for _, n := range la.Spec.Protected() {
			if v, ok := proc.Lookup(ev.Vars, n); ok {
				rm.ExecEnv[n] = la.State.Digest(n, v)
			}
		}
		out = append(out, rm)
	}
	return out
}
