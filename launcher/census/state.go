package census

import (
	"fmt"

	"github.com/childproof/childproof/launcher/statedir"
	"github.com/childproof/childproof/proc"
	"github.com/childproof/childproof/verify"
)

// State is the state dir a census or a stop reads and changes, and how a
// respawned worker is re-selected there. It is safe for concurrent use as
// its Store is, once set up.
type State struct {
	*statedir.Store
	// Reselect re-selects the workers of a recorded launch in its live
	// tree (package launcher's, which reads the spec again): a copy of rec
	// naming the live worker and a note, or nil while the recorded worker
	// runs, for a launch stopped or still pending, or when nothing is
	// selected. Nil: nothing is re-selected.
	Reselect func(p proc.FS, rec *statedir.Record) (*statedir.Record, string)
}

// reselectLive is s.Reselect, nil without one.
func (s *State) reselectLive(p proc.FS, rec *statedir.Record) (*statedir.Record, string) {
	if s.Reselect == nil {
		return nil, ""
	}
	return s.Reselect(p, rec)
}

// reselectRecorded is Reselect for a census: the recorded launch name
// (whose worker is gone while members of its tree are left) re-selected
// (reselectLive). It returns the re-selected worker and a short note, or
// nil when the record cannot be read, the launch is not the census's
// round, or nothing in the live tree matches.
func (s *State) reselectRecorded(p proc.FS, name string, round int) (*verify.Fingerprint, string) {
	rec, err := s.Load(name)
	if err != nil || rec.Round != round {
		return nil, ""
	}
	again, _ := s.reselectLive(p, rec)
	if again == nil {
		return nil, ""
	}
	return &again.Worker, fmt.Sprintf("worker re-selected after a respawn (recorded pid %d is gone)", rec.Worker.Pid)
}
