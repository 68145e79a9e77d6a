//go:build linux

package launcher

import (
	"syscall"
	"time"

	"github.com/childproof/childproof/launcher/journal"
	"github.com/childproof/childproof/launcher/mask"
	"github.com/childproof/childproof/spec"
)

// beginRound numbers the launch's new round and writes it as "launching"
// (journal.Begin); prev and prevErr are the launch's record as the caller
// just loaded it (State.LoadFile). The caller holds the launch lock, so
// no other launch numbers one.
func (s *State) beginRound(l *spec.Launch, opts Options, plan *RoundPlan, prev *Record, prevErr error) *Round {
	start := journal.Start{Command: opts.Command, SpecHash: opts.SpecHash, Set: opts.Set, SecretSet: opts.SecretSet, Proc: opts.Proc,
		Prev: prev, PrevErr: prevErr, PrevLoaded: true}
	return journal.Begin(s.Store, l, start, plan)
}

// Override describes --set k=v of a round; its value is kept unless
// it is secret (Options.SecretSet, or a name the spec makes secret).
func (s *State) Override(l *spec.Launch, opts Options, k, v string) Override {
	return journal.Override(s.Store, l, opts.SecretSet, k, v)
}

// finishRound records the outcome of Start: la is the last attempt (nil
// when none started a tree), err its error (journal.Finish).
func (s *State) finishRound(r *Round, la *Launch, err error) {
	if r == nil {
		return
	}
	journal.Finish(s.Store, r, la.attempt(), err)
}

// attempt is what journal.Finish reads of la (nil: none).
func (la *Launch) attempt() *journal.Attempt {
	if la == nil {
		return nil
	}
	a := &journal.Attempt{RootStatus: la.rootStatus}
	if la.tree != nil && la.tree.Root != nil {
		a.Started = true
		a.LogKeep = la.Spec.EffectiveLogKeep()
		if la.worker.Pid != 0 {
			w := mask.Exe(la.Env.Secrets(), la.worker.Fingerprint)
			a.Worker = &w
		}
	}
	if la.Record != nil {
		a.WorkerEnv = la.Record.WorkerEnv
	}
	if la.Spec != nil {
		a.Volatile = la.Spec.Volatile
	}
	return a
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
// the relaunch's delta was not exactly the declared one (journal.Refuse).
func (s *State) RefuseRound(la *Launch) {
	if la.notes.round == nil {
		return
	}
	journal.Refuse(s.Store, la.Spec.Name, la.notes.round.N)
}
