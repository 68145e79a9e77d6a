package launcher

import (
	"context"

	"github.com/childproof/childproof/launcher/recorded"
	"github.com/childproof/childproof/proc"
	"github.com/childproof/childproof/spec"
	"github.com/childproof/childproof/verify"
)

// The inspection of a recorded launch is package recorded's, named here
// so that launcher's callers keep their names.

// SpecArg resolves a NAME|SPEC[:NAME] argument, as the commands that act
// on a recorded launch take it (recorded.State.SpecArg).
func (s *State) SpecArg(arg string) (string, *Record, error) { return s.recorded().SpecArg(arg) }

// LoadRunning loads the record of launch name and checks, through p, that
// its recorded worker is still the process it started
// (recorded.State.LoadRunning).
func (s *State) LoadRunning(name string, p proc.FS) (*Record, error) {
	return s.recorded().LoadRunning(name, p)
}

// VerifyRecorded is verify SPEC's proof of the recorded launch rec of l,
// which runs (recorded.Verify).
func VerifyRecorded(ctx context.Context, v *verify.Verifier, l *spec.Launch, rec *Record) *verify.Report {
	return recorded.Verify(ctx, v, l, rec)
}

// VerifyRunning is verify SPEC: the recorded launch of l, which must run,
// proved by its recorded evidence (recorded.State.VerifyRunning).
func (s *State) VerifyRunning(ctx context.Context, v *verify.Verifier, l *spec.Launch) (*verify.Report, error) {
	return s.recorded().VerifyRunning(ctx, v, l)
}

// ExplainRecorded is explain SPEC's view of the recorded launch of l,
// which must run (recorded.State.Explain).
func (s *State) ExplainRecorded(ctx context.Context, v *verify.Verifier, l *spec.Launch, names []string) (*verify.Explanation, error) {
	return s.recorded().Explain(ctx, v, l, names)
}

// ExplainPid is explain --pid's view of process pid
// (recorded.State.ExplainPid).
func (s *State) ExplainPid(ctx context.Context, v *verify.Verifier, pid int, names []string, values map[string]string) (*verify.Explanation, error) {
	return s.recorded().ExplainPid(ctx, v, pid, names, values)
}

// VerifyRanks verifies every worker of a multi-process job but the first
// with chk's expectations (recorded.VerifyRanks).
func VerifyRanks(ctx context.Context, v *verify.Verifier, l *spec.Launch, chk verify.Check, rec *Record, r *verify.Report) {
	recorded.VerifyRanks(ctx, v, l, chk, rec, r)
}

// RecordedTree is what the tree judgement of a recorded launch reads
// (recorded.Tree).
func RecordedTree(p proc.FS, rec *Record) verify.TreeCheck { return recorded.Tree(p, rec) }

// Reselect re-selects the worker of the recorded launch rec of l from its
// live tree when the recorded worker is gone (recorded.Reselect).
func Reselect(p proc.FS, l *spec.Launch, rec *Record) (*Record, string) {
	return recorded.Reselect(p, l, rec)
}

// reselector is how package census re-selects a respawned worker.
func (s *State) reselector() func(proc.FS, *Record) (*Record, string) {
	return s.recorded().ReselectLive
}

// History is a launch's crash-fix rounds as they stand now
// (recorded.History). It is plain data, safe for concurrent use while no
// one changes it.
type History = recorded.History

// History returns name's rounds (recorded.State.History).
func (s *State) History(p proc.FS, name string) (*History, error) {
	return s.recorded().History(p, name)
}

// FillRoundEnds records the end of every verified round of name whose
// worker is gone unseen, and returns the rounds (recorded.FillRoundEnds).
func FillRoundEnds(p proc.FS, st *State, name string) ([]*Round, error) {
	return recorded.FillRoundEnds(p, st.recorded(), name)
}
