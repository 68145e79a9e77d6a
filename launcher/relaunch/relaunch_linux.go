package relaunch

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/childproof/childproof/launcher"
	"github.com/childproof/childproof/outcome"
	"github.com/childproof/childproof/spec"
	"github.com/childproof/childproof/verify"
)

// DeltaName is one name whose digest differs between the recorded worker's
// environ and the relaunched worker's.
// It is plain data, safe for concurrent use while no one changes it.
type DeltaName struct {
	Name string   `json:"name"`
	How  DeltaHow `json:"how"`
	// Declared is set when the name was one of the --set names.
	Declared bool `json:"declared"`
	// Source says where the name comes from, as far as the spec tells.
	Source DeltaSource `json:"source"`
}

// Delta compares the recorded worker's environment with the relaunched
// worker's, by keyed digest only.
// It is plain data, safe for concurrent use while no one changes it.
type Delta struct {
	// Declared are the --set names, sorted.
	Declared []string `json:"declared"`
	// Changed lists every name whose digest differs, sorted by name.
	Changed []DeltaName `json:"changed"`
	// Unexpected are the changed names that were not declared.
	Unexpected []DeltaName `json:"unexpected"`
	// Unchanged are declared names whose digest did not change: the
	// recorded worker already had that value, so the --set does nothing.
	Unchanged []string `json:"unchanged"`
	// Dropped are overrides of the baseline round that this round drops
	// (--unset, or absent from the round replayed with --round): they may
	// change on the worker, and need not.
	Dropped []string `json:"dropped"`
	// Forward are overrides carried forward from earlier rounds without
	// being given again: they must not change.
	Forward []string `json:"carried_forward"`
	// Carried are declared names whose digest did not change because the
	// recorded launch had the same override: a --set of the previous
	// round, repeated to keep it. They are not a failure.
	Carried []string `json:"carried"`
	// Volatile are the changed names that the launched tree sets anew on
	// every launch (the spec's volatile list and spec.BuiltinVolatile)
	// and that were not declared: left out of the check.
	Volatile []string `json:"volatile"`
	// Ranks is the number of workers the delta was proven on (a
	// multi-process job; 0: one worker).
	Ranks int `json:"ranks,omitempty"`
	// Argv says how the launched command line differs from the recorded
	// one ("argv[3] "a" → "b""; "": it does not); ArgvUndeclared is set
	// when no --var changed it, which fails the delta.
	Argv           string `json:"argv,omitempty"`
	ArgvUndeclared bool   `json:"argv_undeclared,omitempty"`
}

// addRanks proves the delta on every other rank of a multi-process job
// too: each new rank against the recorded rank of the same RANK (by
// digest; else the same place in start order). What differs unexpectedly on
// any rank is unexpected; a declared name unchanged on one is unchanged.
// Ranks counts the ranks compared (0: one worker).
func (d *Delta) addRanks(before, after []launcher.RecordRank, declared []string, isVolatile func(string) bool) {
	if len(after) < 2 {
		return
	}
	d.Ranks = len(after)
	for i := 1; i < len(after); i++ {
		prev := pairRank(before, after[i], i)
		if prev == nil {
			d.Unexpected = append(d.Unexpected, DeltaName{Name: fmt.Sprintf("(worker %d/%d: no recorded rank to compare with)", i+1, len(after)), How: DeltaAdded})
			continue
		}
		rd := CompareEnv(prev.WorkerEnv, after[i].WorkerEnv, declared)
		rd.setVolatile(isVolatile)
		for _, u := range rd.Unexpected {
			if !slices.ContainsFunc(d.Unexpected, func(x DeltaName) bool { return x.Name == u.Name }) {
				d.Unexpected = append(d.Unexpected, u)
			}
			if !slices.ContainsFunc(d.Changed, func(x DeltaName) bool { return x.Name == u.Name }) {
				d.Changed = append(d.Changed, u)
			}
		}
		for _, n := range rd.Unchanged {
			if !slices.Contains(d.Unchanged, n) {
				d.Unchanged = append(d.Unchanged, n)
			}
		}
		for _, n := range rd.Volatile {
			if !slices.Contains(d.Volatile, n) {
				d.Volatile = append(d.Volatile, n)
			}
		}
	}
	slices.Sort(d.Volatile)
}

// pairRank returns the recorded rank that a new rank is compared with:
// the one whose RANK (or LOCAL_RANK) has the same digest, else the i-th.
func pairRank(before []launcher.RecordRank, now launcher.RecordRank, i int) *launcher.RecordRank {
	for _, key := range []string{"RANK", "LOCAL_RANK", "OMPI_COMM_WORLD_RANK", "PMIX_RANK", "SLURM_PROCID"} {
		d, ok := now.WorkerEnv[key]
		if !ok {
			continue
		}
		for j := range before {
			if before[j].WorkerEnv[key] == d {
				return &before[j]
			}
		}
	}
	if i < len(before) {
		return &before[i]
	}
	return nil
}

// setVolatile moves the undeclared changed names that isVolatile calls
// volatile from Unexpected to Volatile.
func (d *Delta) setVolatile(isVolatile func(string) bool) {
	keep := d.Unexpected[:0]
	for _, u := range d.Unexpected {
		if isVolatile(u.Name) {
			d.Volatile = append(d.Volatile, u.Name)
		} else {
			keep = append(keep, u)
		}
	}
	d.Unexpected = keep
}

// OK reports whether the delta is exactly the declared names.
func (d *Delta) OK() bool {
	return len(d.Unexpected) == 0 && len(d.Unchanged) == 0 && !d.ArgvUndeclared
}

// CompareEnv compares two name → digest maps (Record.WorkerEnv) and checks
// that the names whose digest differs are exactly declared.
func CompareEnv(before, after map[string]string, declared []string) *Delta {
	d := &Delta{Declared: slices.Sorted(slices.Values(declared)), Changed: []DeltaName{}, Unexpected: []DeltaName{}, Unchanged: []string{}, Carried: []string{}, Dropped: []string{}, Forward: []string{}, Volatile: []string{}}
	d.Declared = append([]string{}, slices.Compact(d.Declared)...)
	names := map[string]bool{}
	for n := range before {
		names[n] = true
	}
	for n := range after {
		names[n] = true
	}
	// childproof's own per-launch marker differs between any two
	// launches and is no part of the launch's environment.
	delete(names, launcher.MarkerVar)
	changed := map[string]bool{}
	for _, n := range slices.Sorted(func(yield func(string) bool) {
		for n := range names {
			if !yield(n) {
				return
			}
		}
	}) {
		b, inB := before[n]
		a, inA := after[n]
		var how DeltaHow
		switch {
		case inB && !inA:
			how = DeltaRemoved
		case !inB && inA:
			how = DeltaAdded
		case a != b:
			how = DeltaChanged
		default:
			continue
		}
		changed[n] = true
		dn := DeltaName{Name: n, How: how, Declared: slices.Contains(d.Declared, n)}
		d.Changed = append(d.Changed, dn)
		if !dn.Declared {
			d.Unexpected = append(d.Unexpected, dn)
		}
	}
	for _, n := range d.Declared {
		if !changed[n] {
			d.Unchanged = append(d.Unchanged, n)
		}
	}
	return d
}

// Result is what Relaunch did besides the new launch.
// It is plain data, safe for concurrent use while no one changes it.
type Result struct {
	// Previous is the recorded launch that was replaced.
	Previous *launcher.Record
	// Stopped says what became of the previous launch (nil when its record
	// was already marked stopped).
	Stopped *launcher.StopResult
	// Delta is the comparison of the new worker's environment with the
	// previous worker's (nil when the new launch failed before it was
	// verified).
	Delta *Delta
	// Round is the new round's number once its worker was verified (a
	// refused round keeps its number in the history); 0 before that.
	Round int
	// EnvFiles are the env file edits made or undone (--in-env-file,
	// --unset, --round); a relaunch that fails puts the files back.
	EnvFiles []EnvFileChange
	// EnvFilesRestored is set when a failed relaunch put its env file
	// edits back.
	EnvFilesRestored bool
	// Rollback is set when the relaunch failed after the previous launch
	// was stopped.
	Rollback RollbackResult
}

// RollbackResult says how a relaunch that failed after stopping the
// previous launch can bring it back, and what Options.Rollback did.
// It is plain data, safe for concurrent use while no one changes it.
type RollbackResult struct {
	// From is the round of the stopped launch (relaunch --round From
	// brings it back); 0 when nothing was stopped.
	From int
	// Launch is the rollback's launch, verified (nil: none, or it failed
	// with Err). It runs detached, as its own round.
	Launch *launcher.Launch
	Err    error
	// Tried is set when Options.Rollback was set and the
	// relaunch failed: a rollback was called for (with From 0 there was
	// nothing to bring back). present.RollbackText says how it went.
	Tried bool
}

// Options tune Relaunch.
// It is plain data, safe for concurrent use while no one changes it.
type Options struct {
	launcher.Options
	// Unset drops overrides carried forward from the baseline round; nil:
	// every one is carried.
	Unset []string
	// Round replays round N's overrides (secret ones must be in Set
	// again) instead of carrying the baseline round's forward; 0: carry
	// the baseline round's.
	Round int
	// Rollback: when the relaunch fails after the previous launch was
	// stopped, relaunch round RollbackResult.From again at once (its own
	// round, detached; Result.Rollback says how it went).
	Rollback bool
	// InEnvFile maps a Set name to the env file (absolute path) that the
	// dispatch chain re-sources over it (the lint's env-file-clobber
	// finding): the value is written into that file too, in place, as part
	// of the round (relaunch --in-env-file). --unset and Round undo it.
	InEnvFile map[string]string
	// Lint, when set, lints the dispatch chain as the round will run it:
	// it is called once the env file edits the round drops (--unset,
	// --round) are put back, before any edit is made or anything stopped,
	// and returns InEnvFile (the lint decides which files take which
	// --set value). Its error ends the relaunch as it is, with every env
	// file put back as it was. nil: InEnvFile is used, nothing is linted.
	Lint func(context.Context) (map[string]string, error)
}

// Relaunch is a crash-fix round: it stops the recorded launch of l.Name
// (only if its worker's fingerprint still matches; a gone or reused worker
// is left alone), starts l again with opts.Set as extra overrides, verifies
// the new worker as Start does, and then compares the new worker's
// environment with the recorded worker's, digest by digest. The names whose
// digest differs must be exactly the names of opts.Set. Anything else — an
// env file edited meanwhile, a dispatcher clobbering the mitigation, a
// variable dropped or added — is an *Error with Outcome outcome.Delta and one
// KindDelta problem per unexpected name; the new tree is then stopped and the
// previous record is kept as the baseline for the next round.
//
// No value is compared or stored: only keyed digests of the state dir.
// Checks that need no process (a missing record, a bad --set) fail before
// the previous launch is touched.
func Relaunch(ctx context.Context, l *spec.Launch, opts Options) (*launcher.Launch, *Result, error) {
	la, res, err := relaunch(ctx, l, opts)
	if err != nil && res != nil {
		res.Rollback.Tried = opts.Rollback
	}
	if err != nil && res != nil && res.Rollback.From > 0 {
		var e *launcher.Error
		if errors.As(err, &e) {
			e.Rollback = res.Rollback.From
			if e.Name == "" {
				e.Name = l.Name
			}
		}
		if opts.Rollback {
			res.Rollback.Launch, res.Rollback.Err = rollback(ctx, l, opts, res.Rollback.From)
		}
	}
	secrets := launcher.LaunchSecrets(l, opts.Options)
	if la != nil {
		secrets = la.Env.Secrets()
	}
	return la, res, launcher.MaskErr(err, secrets)
}

// relaunchRound is what one relaunch carries from phase to phase.
type relaunchRound struct {
	l *spec.Launch
	// opts are Relaunch's options, opts.State set; once planned, opts.Set
	// holds every override of the round (carried, replayed and --set).
	opts Options
	st   *launcher.State
	res  *Result
	// prev is the recorded launch, the one stopped; base is what the
	// delta is measured against (prev, or its last verified round's worker).
	prev, base *launcher.Record
	// baseline is a copy of *base taken before prev is stopped: the
	// record put back when the round is refused.
	baseline launcher.Record
	plan     *launcher.RoundPlan
	// explicit are the --set values as given.
	explicit map[string]string
	// declared are the names that must change, then those that may
	// (may: dropped overrides).
	declared, may []string
	// lock is the launch's lock, held from the stop of prev to the start
	// of the next; supervised is set when a foreground run supervising
	// prev held it instead.
	lock       *launcher.Lock
	supervised bool
	// restoreFiles puts the env file edits back; ok is set once the round
	// is accepted, which keeps them.
	restoreFiles func() bool
	ok           bool
}

// relaunch runs the phases of a relaunch in order: load the record, pick
// the base, plan the round, edit the env files, take the lock, stop the
// previous launch, start and verify, compare, then accept or refuse.
func relaunch(ctx context.Context, l *spec.Launch, opts Options) (*launcher.Launch, *Result, error) {
	st, prev, err := loadRelaunched(l, opts)
	if err != nil {
		return nil, nil, err
	}
	opts.State = st
	r := &relaunchRound{l: l, opts: opts, st: st, prev: prev, res: &Result{Previous: prev}}
	if err := r.pickBase(); err != nil {
		return nil, r.res, err
	}
	if err := r.planRound(); err != nil {
		return nil, r.res, err
	}
	if err := r.checkArgv(); err != nil {
		return nil, r.res, err
	}
	// A state dir that cannot take the new round refuses it now, while the
	// recorded launch still runs.
	if err := st.CheckWritable(l.Name); err != nil {
		return nil, r.res, err
	}
	defer r.undoEnvFiles()
	if err := r.editEnvFiles(ctx); err != nil {
		return nil, r.res, err
	}
	r.baseline = *r.base
	if err := r.takeLock(); err != nil {
		return nil, r.res, err
	}
	if err := r.stopPrevious(ctx); err != nil {
		return nil, r.res, err
	}
	la, err := r.start(ctx)
	if err != nil {
		return nil, r.res, err
	}
	if r.compare(la).OK() {
		return r.accept(la), r.res, nil
	}
	return nil, r.res, r.refuse(la)
}

// loadRelaunched decides what is relaunched: l must have a name, and the
// state dir must hold a trusted record of it (else NotRecorded, naming
// the state dir). Nothing is locked or stopped.
func loadRelaunched(l *spec.Launch, opts Options) (*launcher.State, *launcher.Record, error) {
	if err := launcher.CheckLaunch(l); err != nil {
		return nil, nil, err
	}
	st, err := launcher.StateOf(opts.Options)
	if err != nil {
		return nil, nil, err
	}
	prev, err := st.Load(l.Name)
	if err != nil {
		if errors.Is(err, launcher.ErrUntrusted) {
			return nil, nil, err
		}
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil, &launcher.Error{Outcome: outcome.NotRecorded, Err: err,
				Msg:  fmt.Sprintf("no launch of %q is recorded in %s: nothing to relaunch", l.Name, st.Dir),
				Name: l.Name, Fix: launcher.FixStartFirst,
				Hint: "start it first with launcher.Start, in the same state dir"}
		}
		return nil, nil, &launcher.Error{Outcome: outcome.Usage, Msg: "record", Err: err}
	}
	return st, prev, nil
}

// pickBase decides what the relaunch's delta is measured against: the
// record, or — when the record is the journal of a launch cut short (a
// childproof SIGKILLed mid-relaunch) — its last verified round's worker.
// prev stays what is stopped. A base without digests of its worker's
// environment is a usage error: there is nothing to compare with.
func (r *relaunchRound) pickBase() error {
	prev := r.prev
	r.base = prev
	if len(prev.WorkerEnv) == 0 && prev.Pending {
		if rn := r.st.LastVerifiedRound(r.l.Name); rn != nil {
			b := *prev
			b.WorkerEnv, b.Round = rn.WorkerEnv, rn.N
			b.Env = map[string]string{}
			r.base = &b
		}
	}
	if len(r.base.WorkerEnv) == 0 {
		return &launcher.Error{Outcome: outcome.Usage,
			Msg:  fmt.Sprintf("the record of %q holds no digests of its worker's environment: there is nothing to compare a relaunch with", r.l.Name),
			Name: r.l.Name, Fix: launcher.FixRecordOld,
			Hint: "start it with launcher.Start (this version records them)"}
	}
	return nil
}

// planRound decides the round's overrides: the baseline round's (or
// --round N's) carried forward, minus --unset, plus --set, and which names
// must and may change. Everything that can fail without a process fails
// here, before anything is stopped: a secret override not given again, a
// bad --set or an unreadable env file, a delta certain before launch, and
// an --in-env-file name that is not a --set name of this round.
func (r *relaunchRound) planRound() error {
	plan, set, must, may, err := planRelaunch(r.st, r.l, r.base, r.opts)
	if err != nil {
		return err
	}
	r.plan, r.may = plan, may
	r.explicit = r.opts.Set
	r.opts.Set = set
	r.declared = append(slices.Clone(must), may...)
	allowed := map[string]string{}
	for _, n := range r.declared {
		allowed[n] = ""
	}
	env, err := launcher.ResolveEnvFor(r.l, r.opts.Options)
	if err != nil {
		return err
	}
	// A delta certain before launch: an override (which verification
	// proves reaches the worker verbatim) that is not a --set name but
	// differs from the recorded worker's value, or an override of the
	// recorded launch (a --set of its round) that nothing sets now.
	if rep := predictDelta(r.st, r.base, env, allowed); rep != nil {
		rep.Name = r.l.Name
		return &launcher.Error{Outcome: outcome.Delta, Report: rep,
			Msg:  "the relaunch would change more than the Options.Set names: " + rep.Problems[0].Message + "; nothing was stopped",
			Fix:  launcher.FixDeclareDelta,
			Hint: "declare each intended change in Options.Set (repeat the recorded launch's overrides to keep them)"}
	}
	return nil
}

// editEnvFiles makes the env files follow the round's overrides: first
// an earlier edit undone (--unset, --round), then opts.Lint judges the
// chain as restored and names the --in-env-file edits, then those are
// made. A relaunch that fails from here on puts the files back
// (undoEnvFiles).
func (r *relaunchRound) editEnvFiles(ctx context.Context) error {
	y := newEnvFileSync(r.st, r.plan, r.opts.Set)
	r.restoreFiles = y.restore
	defer func() { r.res.EnvFiles = y.changes }()
	if err := y.restorePhase(); err != nil {
		return err
	}
	if r.opts.Lint != nil {
		in, err := r.opts.Lint(ctx)
		if err != nil {
			return err
		}
		r.opts.InEnvFile = in
	}
	for n := range r.opts.InEnvFile {
		if !hasKey(r.explicit, n) {
			return &launcher.Error{Outcome: outcome.Usage, Err: &OptionError{Fields: []string{"InEnvFile"}, Arg: n, NotIn: "Set"}}
		}
	}
	return y.editPhase(r.opts.InEnvFile)
}

// undoEnvFiles puts the round's env file edits back unless the round was
// accepted, and says so in EnvFilesRestored when a file was written.
func (r *relaunchRound) undoEnvFiles() {
	if !r.ok && r.restoreFiles != nil && r.restoreFiles() {
		r.res.EnvFilesRestored = true
	}
}

// takeLock takes the launch's lock, held from the stop of the recorded
// launch to the start of the next (startHeld): no run or stop gets between
// them. A foreground run supervising the recorded launch holds the lock
// until its worker is gone (supervised; stopPrevious waits for it);
// anything else holding it is a launch in progress (Locked), and a record
// changed since it was read is Locked too. Nothing is stopped on failure.
func (r *relaunchRound) takeLock() error {
	prev := r.prev
	lock, lerr := r.st.Lock(r.l.Name)
	if lerr != nil {
		if prev.Supervisor == 0 || prev.Stopped != nil || prev.Worker.Check(r.opts.Proc) != verify.Alive {
			return lerr
		}
		r.supervised = true
		return nil
	}
	r.lock = lock
	if cur, err := r.st.Load(r.l.Name); err != nil || !cur.SameLaunch(prev) {
		// Another command changed the record since it was read.
		lock.Unlock()
		return &launcher.Error{Outcome: outcome.Locked, Err: launcher.ErrLocked,
			Msg:  fmt.Sprintf("the record of %q changed while the relaunch prepared (another childproof launched or stopped it); nothing was stopped", r.l.Name),
			Hint: "run the relaunch again"}
	}
	return nil
}

// stopPrevious stops the recorded launch unless its record is already
// marked stopped (StopRecord signals only a worker whose fingerprint still
// matches). Once it was signalled, a failure leaves the service down:
// Rollback.From is its round. Under a supervising run, it then waits (up
// to the stop grace) for the supervisor to let go of the lock.
func (r *relaunchRound) stopPrevious(ctx context.Context) error {
	// The previous launch's own stop block (its record's), unless the
	// caller set a grace (relaunch --timeout).
	timeout := r.prev.StopGraceOr(r.opts.StopGrace)
	if r.prev.Stopped == nil {
		sr, err := launcher.StopRecord(ctx, r.opts.Proc, r.st, r.prev, timeout)
		if err != nil {
			r.lock.Unlock()
			return err
		}
		r.res.Stopped = sr
		if sr.Signalled && r.prev.Round > 0 {
			r.res.Rollback.From = r.prev.Round
		}
	}
	if r.supervised {
		lk, err := r.st.LockWait(ctx, r.l.Name, timeout)
		if err != nil {
			return err
		}
		r.lock = lk
	}
	return nil
}

// start starts and verifies the new launch as Start does, under the held
// lock, which stays held (keep) until the delta is judged: a refused
// relaunch restores the previous record before anyone else may act. A
// --set value that did not reach the first worker is a failed delta too: a
// KindDelta problem is added to the failed verification's report.
func (r *relaunchRound) start(ctx context.Context) (*launcher.Launch, error) {
	la, err := launcher.StartHeld(ctx, r.l, r.opts.Options, launcher.Held{Lock: r.lock, Keep: true, Plan: r.plan})
	if err == nil {
		return la, nil
	}
	var e *launcher.Error
	if errors.As(err, &e) && e.Report != nil {
		for _, pr := range slices.Clone(e.Report.Problems) {
			if pr.Kind != verify.KindEnvMismatch && pr.Kind != verify.KindEnvMissing {
				continue
			}
			for n := range r.explicit {
				// The first worker's (a rank's problem stays its own).
				if pr.Subject.Var == n && (e.Report.Worker == nil || pr.Subject.Pid == e.Report.Worker.Pid) {
					e.Report.AddAbout(verify.KindDelta, verify.Subject{Var: n}, nil, "%s: the --set value did not reach the worker (something in the launch chain overrides it)", n)
				}
			}
		}
	}
	return nil, err
}

// compare sets res.Delta: the new worker's environment (every rank's)
// against the baseline's, by digest. Volatile names are left out; dropped
// overrides may change; overrides carried without being given again are
// Forward; a declared name unchanged because the recorded launch had the
// same override is Carried, not Unchanged. Each changed name gets its source.
func (r *relaunchRound) compare(la *launcher.Launch) *Delta {
	l, baseline := r.l, &r.baseline
	d := CompareEnv(baseline.WorkerEnv, la.Record.WorkerEnv, r.declared)
	d.setVolatile(l.IsVolatile)
	d.addRanks(baseline.Ranks, la.Record.Ranks, r.declared, l.IsVolatile)
	if len(baseline.Argv) > 0 {
		d.Argv = argvDelta(baseline.Argv, la.Record.Argv)
		d.ArgvUndeclared = d.Argv != "" && !r.opts.ArgvMayChange
	}
	r.res.Delta = d
	var unchanged []string
	d.Dropped = append(d.Dropped, r.may...)
	for n := range r.opts.Set {
		if !slices.Contains(r.declared, n) {
			d.Forward = append(d.Forward, n)
		}
	}
	slices.Sort(d.Forward)
	for _, n := range d.Unchanged {
		if slices.Contains(r.may, n) {
			continue // a dropped override need not change
		}
		if dg := baseline.Env[n]; dg != "" && dg == la.Record.Env[n] {
			d.Carried = append(d.Carried, n)
		} else {
			unchanged = append(unchanged, n)
		}
	}
	d.Unchanged = append([]string{}, unchanged...)
	sources := deltaSources(l, r.opts.Set, baseline)
	for i := range d.Changed {
		d.Changed[i].Source = sources(d.Changed[i].Name)
	}
	for i := range d.Unexpected {
		d.Unexpected[i].Source = sources(d.Unexpected[i].Name)
	}
	return d
}

// accept keeps the round whose delta is exactly the declared one: its
// env file edits stay, res.Round is its number, and a detached launch lets
// go of the lock.
func (r *relaunchRound) accept(la *launcher.Launch) *launcher.Launch {
	r.ok = true
	r.res.Round = la.Round()
	if la.Detached() {
		la.TakeLock().Unlock()
	}
	return la
}

// refuse refuses the round with an unexpected delta: the report gets a
// KindDelta problem per unexpected or unchanged name and outcome Delta,
// the new tree is stopped, the previous record is put back (marked
// stopped) as the baseline of the next round before the lock is let go,
// and the round is marked refused. It returns the Delta *Error.
func (r *relaunchRound) refuse(la *launcher.Launch) error {
	defer r.st.RefuseRound(la)
	d := r.res.Delta
	r.res.Round = la.Round()
	rep := la.Report
	for _, u := range d.Unexpected {
		n := &DeltaNote{What: DeltaUnexpected, Var: u.Name, How: u.How, Source: u.Source, EnvFile: r.l.EnvFile}
		rep.Problems = append(rep.Problems, verify.Problem{Kind: verify.KindDelta, Message: n.Say(GoWords), Note: n})
	}
	for _, n := range d.Unchanged {
		addDelta(rep, &DeltaNote{What: DeltaUnchanged, Var: n})
	}
	if d.ArgvUndeclared {
		addDelta(rep, &DeltaNote{What: DeltaArgv, Argv: d.Argv})
	}
	rep.Verified = false
	rep.SetOutcome(outcome.Delta)
	// Stop has just saved the refused record; the lock is kept (not
	// released by Stop) until the previous record is back.
	held := la.TakeLock()
	la.Stop(context.Background())
	if r.baseline.Stopped == nil {
		now := time.Now().UTC()
		r.baseline.Stopped = &now
	}
	err := r.st.Save(&r.baseline)
	held.Unlock()
	if err != nil {
		return &launcher.Error{Outcome: outcome.Usage, Msg: "cannot restore the previous record", Err: err}
	}
	names := make([]string, 0, len(d.Unexpected)+len(d.Unchanged))
	for _, u := range d.Unexpected {
		names = append(names, u.Name)
	}
	names = append(names, d.Unchanged...)
	if d.ArgvUndeclared {
		names = append(names, "the command line ("+d.Argv+")")
	}
	msg := fmt.Sprintf("unexpected environment delta on the worker: %s (declared: %s); the new launch was stopped",
		strings.Join(names, ", "), listOrNone(d.Declared))
	return &launcher.Error{Outcome: outcome.Delta, Report: rep, Msg: msg,
		Fix:  launcher.FixDeltaFound,
		Hint: "a relaunch must change exactly the names of Options.Set; declare each intended change there, or undo the others (the previous record stays the baseline)"}
}

// hasKey reports whether m has the key k.
func hasKey[V any](m map[string]V, k string) bool {
	_, ok := m[k]
	return ok
}

func listOrNone(s []string) string {
	if len(s) == 0 {
		return "none"
	}
	return strings.Join(s, ", ")
}

// deltaSources returns a function naming where a variable comes from.
func deltaSources(l *spec.Launch, set map[string]string, prev *launcher.Record) func(string) DeltaSource {
	fromFile := map[string]bool{}
	if names, err := l.EnvFileNames(); err == nil {
		for _, n := range names {
			fromFile[n] = true
		}
	}
	return func(n string) DeltaSource {
		switch {
		case hasKey(set, n):
			return SourceSet
		case hasKey(l.Env, n):
			return SourceEnv
		case fromFile[n]:
			return SourceEnvFile
		case hasKey(prev.Env, n) && prev.Env[n] != "" && !slices.Contains(l.Require, n):
			return SourcePreviousSet
		case l.Inherits(n):
			return SourceInherit
		}
		return SourceChain
	}
}

// addDelta adds n to r as a KindDelta problem about its Var, n its Note.
func addDelta(r *verify.Report, n *DeltaNote) {
	r.Problems = append(r.Problems, verify.Problem{Kind: verify.KindDelta, Message: n.Say(GoWords), Subject: verify.Subject{Var: n.Var}, Note: n})
}

// predictDelta returns a report of the deltas certain before launch, or nil.
func predictDelta(st *launcher.State, prev *launcher.Record, env *launcher.Env, set map[string]string) *verify.Report {
	r := verify.NewReport(prev.Name)
	for _, n := range slices.Sorted(maps.Keys(env.Overrides)) {
		if hasKey(set, n) {
			continue
		}
		if d, ok := prev.WorkerEnv[n]; ok && d != st.Digest(n, env.Overrides[n]) {
			addDelta(r, &DeltaNote{What: DeltaWouldChange, Var: n})
		}
	}
	for _, n := range slices.Sorted(maps.Keys(prev.Env)) {
		if prev.Env[n] == "" || hasKey(env.Overrides, n) || hasKey(set, n) {
			continue
		}
		if v, ok := env.Vars[n]; ok && st.Digest(n, v) == prev.WorkerEnv[n] {
			continue
		}
		addDelta(r, &DeltaNote{What: DeltaDropped, Var: n})
	}
	if len(r.Problems) == 0 {
		return nil
	}
	r.SetOutcome(outcome.Delta)
	return r
}

// rollback relaunches round n of l's history (relaunch --rollback after a
// refusal): opts's secret values are given again, nothing else of opts's
// delta is kept; it runs detached, as its own round.
func rollback(ctx context.Context, l *spec.Launch, opts Options, n int) (*launcher.Launch, error) {
	rb := opts
	rb.Round, rb.Unset, rb.InEnvFile, rb.Rollback, rb.Lint = n, nil, nil, false, nil
	rb.Set = map[string]string{}
	if st, err := launcher.StateOf(opts.Options); err == nil {
		if rn, err := st.LoadRound(l.Name, n); err == nil {
			for _, o := range rn.Overrides {
				if v, ok := opts.Set[o.Name]; ok && o.Secret {
					rb.Set[o.Name] = v // never stored: given again
				}
			}
		}
	}
	rb.Detach, rb.Subreaper, rb.Command = true, false, launcher.CommandRollback
	la, _, err := relaunch(ctx, l, rb)
	return la, err
}
