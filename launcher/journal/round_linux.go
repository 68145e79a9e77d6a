package journal

import (
	"errors"
	"maps"
	"slices"
	"syscall"
	"time"

	"github.com/childproof/childproof/launcher/failure"
	"github.com/childproof/childproof/launcher/statedir"
	"github.com/childproof/childproof/outcome"
	"github.com/childproof/childproof/proc"
	"github.com/childproof/childproof/spec"
	"github.com/childproof/childproof/verify"
)

// Start is what a launch's options say of its round: plain values. It is
// plain data, safe for concurrent use while no one changes it.
type Start struct {
	// Command is the round's command ("": statedir.CommandStart).
	Command statedir.Command
	// SpecHash is the spec's hash.
	SpecHash string
	// Set are the --set overrides; SecretSet the names among them that
	// are secret.
	Set       map[string]string
	SecretSet []string
	// Proc reads /proc.
	Proc proc.FS
	// Prev and PrevErr are the launch's record as the caller loaded it
	// just before (PrevLoaded: statedir.Store.LoadFile, whose file it
	// also keeps); without PrevLoaded Begin loads it.
	Prev       *statedir.Record
	PrevErr    error
	PrevLoaded bool
}

// Begin numbers the new round of the launch l and writes it as
// "launching" (nil when it cannot be written); plan is a relaunch's
// (nil: the round of the --set overrides of start). The caller holds the
// launch lock, so no other launch numbers one.
func Begin(st *statedir.Store, l *spec.Launch, start Start, plan *Plan) *statedir.Round {
	// The previous round's detached worker may have ended unseen.
	rec, recErr := start.Prev, start.PrevErr
	if !start.PrevLoaded {
		rec, recErr = st.Load(l.Name)
	}
	if recErr == nil && rec.Round > 0 && rec.Stopped == nil && !rec.Pending {
		if live := rec.Worker.Check(start.Proc); live == verify.Gone || live == verify.Reused {
			st.NoteGone(rec.Name, rec.Round)
		}
	}
	ns, _ := st.RoundNumbers(l.Name)
	n := 1
	if len(ns) > 0 {
		n = ns[len(ns)-1] + 1
	}
	r := &statedir.Round{
		N:       n,
		Name:    l.Name,
		Command: start.Command, Started: time.Now().UTC(), SpecHash: start.SpecHash,
		Delta:     statedir.RoundDelta{Set: []statedir.Override{}, Unset: []string{}},
		Overrides: []statedir.Override{},
		Outcome:   statedir.RoundLaunching,
	}
	if r.Command == "" {
		r.Command = statedir.CommandStart
	}
	if plan == nil {
		plan = &Plan{Overrides: map[string]statedir.Override{}}
		for _, k := range slices.Sorted(maps.Keys(start.Set)) {
			plan.Set = append(plan.Set, k)
			plan.Overrides[k] = Override(st, l, start.SecretSet, k, start.Set[k])
		}
	}
	if plan.Command != "" {
		r.Command = plan.Command
	}
	r.Baseline, r.ReplayOf = plan.Baseline, plan.ReplayOf
	for _, k := range slices.Sorted(maps.Keys(plan.Overrides)) {
		o := plan.Overrides[k]
		if o.Round == 0 {
			o.Round = n
		}
		if o.EnvFile != nil && o.EnvFile.Round == 0 {
			e := *o.EnvFile
			e.Round = n
			o.EnvFile = &e
		}
		r.Overrides = append(r.Overrides, o)
		if slices.Contains(plan.Set, k) {
			r.Delta.Set = append(r.Delta.Set, o)
		}
	}
	r.Delta.Unset = append(r.Delta.Unset, plan.Unset...)
	if r.Command == statedir.CommandRestart {
		// A restart by the restart policy changes nothing: its delta is
		// empty, its overrides those of the launch it restarts.
		r.Delta.Set = []statedir.Override{}
		if recErr == nil {
			r.Baseline = rec.Round
		}
	}
	if err := st.SaveRound(r, false); err != nil {
		return nil
	}
	return r
}

// Override describes --set k=v of a round of l; its value is kept unless
// it is secret (one of secretSet, or a name the spec makes secret).
func Override(st *statedir.Store, l *spec.Launch, secretSet []string, k, v string) statedir.Override {
	o := statedir.Override{Name: k, Digest: st.Digest(k, v)}
	if slices.Contains(secretSet, k) || l.SecretName(k) {
		o.Secret = true
	} else {
		o.Value = &v
	}
	return o
}

// Attempt is what Finish reads of a launch's last attempt: plain values
// the launch holds. It is plain data, safe for concurrent use while no
// one changes it.
type Attempt struct {
	// Started is set when the attempt started a tree (its root exists).
	Started bool
	// LogKeep is how many logs of the launch's rounds are kept.
	LogKeep int
	// Worker is the worker found, masked as its record keeps it (nil:
	// none was found).
	Worker *verify.Fingerprint
	// WorkerEnv is the digests of the verified worker's environment, as
	// its record keeps them (nil: no record).
	WorkerEnv map[string]string
	// Volatile is the spec's volatile names (nil Spec: none).
	Volatile []string
	// RootStatus is the launched root's wait status, nil while unknown;
	// Finish asks for it once it holds the history's lock.
	RootStatus func() *syscall.WaitStatus
}

// Finish records the outcome of a start in its round r: a is its last
// attempt (nil when none started a tree), err its error.
func Finish(st *statedir.Store, r *statedir.Round, a *Attempt, err error) {
	if r == nil {
		return
	}
	unlock, lerr := st.LockHistory(r.Name)
	if lerr != nil {
		return
	}
	defer unlock()
	started := a != nil && a.Started
	if started {
		r.Log = st.KeepRoundLog(r.Name, r.N, a.LogKeep)
		if a.Worker != nil {
			w := *a.Worker
			r.Worker = &w
		}
	}
	if err == nil {
		r.Outcome = statedir.RoundVerified
		if a != nil {
			r.WorkerEnv, r.Volatile = a.WorkerEnv, a.Volatile
		}
		// Not fsync'd, as the verified record (saveLaunched): it is on
		// the launch's hot path, and only a power loss, which ends the
		// round's worker too, could undo the rename.
		st.SaveRound(r, false)
		return
	}
	r.Outcome = statedir.RoundFailed
	r.ExitCode = outcome.Usage.Code()
	var e *failure.Error
	if errors.As(err, &e) {
		if e.Report != nil {
			r.ExitCode = e.Report.ExitCode
			r.Signals = e.Report.Signals
			for _, p := range e.Report.Problems {
				if !slices.Contains(r.Problems, p.Kind) {
					r.Problems = append(r.Problems, p.Kind)
				}
			}
		}
	}
	if started {
		end := &statedir.RoundEnd{At: time.Now().UTC(), Seen: statedir.SeenLaunch}
		if ws := a.RootStatus(); ws != nil && r.ExitCode == outcome.Exited.Code() {
			end.SetStatus(*ws)
		} else {
			end.How, end.StoppedBy = "stopped", "childproof: the launch failed"
		}
		st.SetEnd(r, end)
	}
	st.SaveRound(r, true)
}

// Refuse marks round n of the launch name refused: verified, then
// stopped because the relaunch's delta was not exactly the declared one.
func Refuse(st *statedir.Store, name string, n int) {
	st.UpdateRound(name, n, func(r *statedir.Round) bool {
		r.Outcome, r.Problems, r.ExitCode = statedir.RoundRefused, []verify.Kind{verify.KindDelta}, outcome.Delta.Code()
		if r.End == nil {
			st.SetEnd(r, &statedir.RoundEnd{At: time.Now().UTC(), How: statedir.EndStopped, Seen: statedir.SeenStop})
		}
		r.End.StoppedBy = "childproof: unexpected delta, the relaunch was refused"
		return true
	})
}
