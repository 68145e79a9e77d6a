package launcher

import (
	"github.com/childproof/childproof/launcher/statedir"
)

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
