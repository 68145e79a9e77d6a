//go:build linux

package statedir

import (
	"errors"
	"maps"
	"slices"
	"strconv"

	"github.com/childproof/childproof/spec"
)

// ErrNoWorkerEnv is a round without a verified worker's environment:
// there is nothing to compare.
var ErrNoWorkerEnv = errors.New("the round has no verified worker: there is no environment to compare")

// RoundError is a round DiffRounds cannot compare: round N is not
// recorded or not readable (Err, Round nil), or it has no worker
// environment (ErrNoWorkerEnv, Round the round). It is plain data, safe
// for concurrent use while no one changes it.
type RoundError struct {
	N     int
	Round *Round
	Err   error
}

func (e *RoundError) Error() string { return "round " + strconv.Itoa(e.N) + ": " + e.Err.Error() }

func (e *RoundError) Unwrap() error { return e.Err }

// DiffHow is how a name differs between two rounds' workers.
type DiffHow int

const (
	Changed DiffHow = iota + 1 // in both, with other digests
	OnlyInA                    // only on round A's worker
	OnlyInB                    // only on round B's worker
)

// EnvDiff is one name whose keyed digest differs between the workers of
// two rounds, A and B. It is plain data, safe for concurrent use while no
// one changes it.
type EnvDiff struct {
	Name string
	How  DiffHow
	// A and B are its digests on each worker; empty where it is absent.
	A, B string
	// Overrides are its --set overrides in the rounds compared, A's
	// first; none when it was no override in either.
	Overrides []DiffOverride
	// Volatile says the launched tree sets it anew on every launch (a
	// volatile list of either round, spec.BuiltinVolatile).
	Volatile bool
}

// DiffOverride is an override of a name in a round compared: In is that
// round (A or B); Override.Round is the round that set it, earlier when
// it was carried forward. It is plain data, safe for concurrent use while
// no one changes it.
type DiffOverride struct {
	In int
	Override
}

// DiffRounds compares the workers' environments of rounds a and b of
// name, digest by digest, and returns the names that differ, sorted.
// A round that cannot be compared is a *RoundError.
func (s *Store) DiffRounds(name string, a, b int) ([]EnvDiff, error) {
	load := func(n int) (*Round, error) {
		r, err := s.LoadRound(name, n)
		if err != nil {
			return nil, &RoundError{N: n, Err: err}
		}
		if r.WorkerEnv == nil {
			return nil, &RoundError{N: n, Round: r, Err: ErrNoWorkerEnv}
		}
		return r, nil
	}
	x, err := load(a)
	if err != nil {
		return nil, err
	}
	y, err := load(b)
	if err != nil {
		return nil, err
	}
	vol := spec.Launch{Volatile: append(slices.Clone(x.Volatile), y.Volatile...)}
	names := maps.Clone(x.WorkerEnv)
	maps.Copy(names, y.WorkerEnv)
	out := []EnvDiff{}
	for _, n := range slices.Sorted(maps.Keys(names)) {
		dx, inX := x.WorkerEnv[n]
		dy, inY := y.WorkerEnv[n]
		d := EnvDiff{Name: n, A: dx, B: dy, Volatile: vol.IsVolatile(n)}
		switch {
		case inX && !inY:
			d.How = OnlyInA
		case !inX && inY:
			d.How = OnlyInB
		case dx != dy:
			d.How = Changed
		default:
			continue
		}
		for _, c := range []struct {
			n int
			r *Round
		}{{a, x}, {b, y}} {
			for _, o := range slices.Backward(c.r.Overrides) {
				if o.Name == n {
					d.Overrides = append(d.Overrides, DiffOverride{In: c.n, Override: o})
					break
				}
			}
		}
		out = append(out, d)
	}
	return out, nil
}
