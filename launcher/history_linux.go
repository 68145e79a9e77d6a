package launcher

import (
	"github.com/childproof/childproof/launcher/statedir"
	"github.com/childproof/childproof/proc"
)

// History is a launch's crash-fix rounds as they stand now — what
// `childproof history` shows. It is plain data, safe for concurrent use
// while no one changes it.
type History struct {
	// Rounds are the recorded rounds, oldest first. A verified round
	// whose worker is gone unseen ends "gone" (FillRoundEnds); a round
	// still "launching" while no launch of the name is under way (or
	// followed by another round) was cut short: its Outcome is
	// "interrupted" here (the file is left as it is).
	Rounds []*Round
	// Current is the round of the recorded launch, the baseline of the
	// next relaunch; zero when the launch has no readable record.
	Current int
}

// History returns name's rounds (see History.Rounds). The error says
// which rounds could not be read or ended; the rounds read are returned
// with it.
func (s *State) History(p proc.FS, name string) (*History, error) {
	rounds, err := FillRoundEnds(p, s, name)
	h := &History{Rounds: rounds}
	if rec, lerr := s.Load(name); lerr == nil {
		h.Current = rec.Round
	}
	for i, r := range rounds {
		if r.Outcome == RoundLaunching && (i < len(rounds)-1 || !s.Launching(name)) {
			r.Outcome = RoundInterrupted
		}
	}
	return h, err
}

// The comparison of two rounds is the state dir's (launcher/statedir),
// named here so that launcher's callers keep their names.
type (
	// RoundError is a round DiffRounds cannot compare
	// (statedir.RoundError).
	RoundError = statedir.RoundError
	// DiffHow is how a name differs between two rounds' workers
	// (statedir.DiffHow).
	DiffHow = statedir.DiffHow
	// EnvDiff is one name whose keyed digest differs between the workers
	// of two rounds (statedir.EnvDiff).
	EnvDiff = statedir.EnvDiff
	// DiffOverride is an override of a name in a round compared
	// (statedir.DiffOverride).
	DiffOverride = statedir.DiffOverride
)

// How a name differs (statedir's).
const (
	Changed = statedir.Changed
	OnlyInA = statedir.OnlyInA
	OnlyInB = statedir.OnlyInB
)

// ErrNoWorkerEnv is a round without a verified worker's environment
// (statedir.ErrNoWorkerEnv).
var ErrNoWorkerEnv = statedir.ErrNoWorkerEnv
