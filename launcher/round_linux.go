//go:build linux

package launcher

import (
	"errors"
	"maps"
	"slices"
	"syscall"
	"time"

	"github.com/childproof/childproof/launcher/mask"
	"github.com/childproof/childproof/outcome"
	"github.com/childproof/childproof/spec"
	"github.com/childproof/childproof/verify"
)

// beginRound numbers the launch's new round and writes it as "launching".
// The caller holds the launch lock, so no other launch numbers one.
func (s *State) beginRound(l *spec.Launch, opts Options, plan *RoundPlan) *Round {
	// The previous round's detached worker may have ended unseen.
	rec, recErr := s.Load(l.Name)
	if recErr == nil && rec.Round > 0 && rec.Stopped == nil && !rec.Pending {
		if live := rec.Worker.Check(opts.Proc); live == verify.Gone || live == verify.Reused {
			s.NoteGone(rec.Name, rec.Round)
		}
	}
	ns, _ := s.RoundNumbers(l.Name)
	n := 1
	if len(ns) > 0 {
		n = ns[len(ns)-1] + 1
	}
	r := &Round{
		N:       n,
		Name:    l.Name,
		Command: opts.Command, Started: time.Now().UTC(), SpecHash: opts.SpecHash,
		Delta:     RoundDelta{Set: []Override{}, Unset: []string{}},
		Overrides: []Override{},
		Outcome:   RoundLaunching,
	}
	if r.Command == "" {
		r.Command = CommandStart
	}
	if plan == nil {
		plan = &RoundPlan{Overrides: map[string]Override{}}
		for _, k := range slices.Sorted(maps.Keys(opts.Set)) {
			plan.Set = append(plan.Set, k)
			plan.Overrides[k] = s.Override(l, opts, k, opts.Set[k])
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
	if r.Command == CommandRestart {
		// A restart by the restart policy changes nothing: its delta is
		// empty, its overrides those of the launch it restarts.
		r.Delta.Set = []Override{}
		if recErr == nil {
			r.Baseline = rec.Round
		}
	}
	if err := s.SaveRound(r, false); err != nil {
		return nil
	}
	return r
}

// Override describes --set k=v of a round; its value is kept unless
// it is secret (Options.SecretSet, or a name the spec makes secret).
func (s *State) Override(l *spec.Launch, opts Options, k, v string) Override {
	o := Override{Name: k, Digest: s.Digest(k, v)}
	if slices.Contains(opts.SecretSet, k) || l.SecretName(k) {
		o.Secret = true
	} else {
		o.Value = &v
	}
	return o
}

// finishRound records the outcome of Start: la is the last attempt (nil
// when none started a tree), err its error.
func (s *State) finishRound(r *Round, la *Launch, err error) {
	if r == nil {
		return
	}
	unlock, lerr := s.LockHistory(r.Name)
	if lerr != nil {
		return
	}
	defer unlock()
	if la != nil && la.tree != nil && la.tree.Root != nil {
		r.Log = s.KeepRoundLog(r.Name, r.N, la.Spec.EffectiveLogKeep())
		if la.worker.Pid != 0 {
			w := mask.Exe(la.Env.Secrets(), la.worker.Fingerprint)
			r.Worker = &w
		}
	}
	if err == nil {
		r.Outcome = RoundVerified
		if la.Record != nil {
			r.WorkerEnv = la.Record.WorkerEnv
		}
		if la.Spec != nil {
			r.Volatile = la.Spec.Volatile
		}
		// Not fsync'd, as the verified record (saveLaunched): it is on
		// the launch's hot path, and only a power loss, which ends the
		// round's worker too, could undo the rename.
		s.SaveRound(r, false)
		return
	}
	r.Outcome = RoundFailed
	r.ExitCode = outcome.Usage.Code()
	var e *Error
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
	if la != nil && la.tree != nil && la.tree.Root != nil {
		end := &RoundEnd{At: time.Now().UTC(), Seen: SeenLaunch}
		if ws := la.rootStatus(); ws != nil && r.ExitCode == outcome.Exited.Code() {
			end.SetStatus(*ws)
		} else {
			end.How, end.StoppedBy = "stopped", "childproof: the launch failed"
		}
		s.SetEnd(r, end)
	}
	s.SaveRound(r, true)
}

// Round returns the number of the launch's round in the history (0 when
// none could be written).
func (la *Launch) Round() int {
	if la.notes.round == nil {
		return 0
	}
	return la.notes.round.N
}

// rootStatus is the launched root's wait status, nil while unknown.
func (la *Launch) rootStatus() *syscall.WaitStatus {
	if la.tree == nil || la.tree.Root == nil || !la.tree.Root.Exited() || la.tree.Root.State == nil {
		return nil
	}
	ws, ok := la.tree.Root.State.Sys().(syscall.WaitStatus)
	if !ok {
		return nil
	}
	return &ws
}

// noteEnd records in the round how the verified worker ended: ws is the
// status the supervisor saw, nil when childproof stopped it without
// seeing one. Only the first note counts.
func (la *Launch) noteEnd(ws *syscall.WaitStatus) {
	la.mu.Lock()
	noted := la.notes.endNoted
	la.notes.endNoted = true
	la.mu.Unlock()
	if noted || la.notes.round == nil || la.Record == nil {
		return
	}
	end := &RoundEnd{At: time.Now().UTC(), Seen: SeenSupervisor}
	if ws != nil {
		end.SetStatus(*ws)
	} else {
		end.How, end.Seen, end.StoppedBy = EndStopped, SeenStop, "childproof stopped the launch"
	}
	la.State.EndRound(la.Spec.Name, la.notes.round.N, la.notes.round.Started, end, la.opts.Detach)
}

// RefuseRound marks la's round refused: verified, then stopped because
// the relaunch's delta was not exactly the declared one.
func (s *State) RefuseRound(la *Launch) {
	if la.notes.round == nil {
		return
	}
	s.UpdateRound(la.Spec.Name, la.notes.round.N, func(r *Round) bool {
		r.Outcome, r.Problems, r.ExitCode = RoundRefused, []verify.Kind{verify.KindDelta}, outcome.Delta.Code()
		if r.End == nil {
			s.SetEnd(r, &RoundEnd{At: time.Now().UTC(), How: EndStopped, Seen: SeenStop})
		}
		r.End.StoppedBy = "childproof: unexpected delta, the relaunch was refused"
		return true
	})
}
