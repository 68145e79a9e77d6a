package launcher

import (
	"github.com/childproof/childproof/launcher/census"
	"github.com/childproof/childproof/proc"
)

type (
	// CensusEntry is one recorded launch as it stands now (census.Entry).
	CensusEntry = census.Entry
	// CensusPort says who holds a recorded port now (census.Port).
	CensusPort = census.Port
	// CensusStatus is where a recorded launch stands (census.Status).
	CensusStatus = census.Status
	// StopResult says what StopRecord did (census.StopResult).
	StopResult = census.StopResult
)

// The census statuses (census.StatusAlive, …).
const (
	StatusAlive      = census.StatusAlive
	StatusGone       = census.StatusGone
	StatusReused     = census.StatusReused
	StatusUnknown    = census.StatusUnknown
	StatusStopped    = census.StatusStopped
	StatusUntrusted  = census.StatusUntrusted
	StatusUnverified = census.StatusUnverified
	StatusDiverged   = census.StatusDiverged
)

// census is s as package census reads it, with launcher's re-selection
// of a respawned worker.
func (s *State) census() *census.State {
	return &census.State{Store: s.Store, Reselect: s.reselector()}
}

// Census checks every record of st; stopped ones only when all is set
// (census.Take).
func Census(p proc.FS, st *State, all bool) ([]CensusEntry, error) {
	return census.Take(p, st.census(), all)
}

// CountStopped returns how many launches of st Census lists as
// StatusStopped with all (census.CountStopped).
func CountStopped(p proc.FS, st *State) (int, error) { return census.CountStopped(p, st.census()) }

// RecordFailure is the error a stop with result r ends with when the
// record could not be marked stopped (census.State.RecordFailure).
func (s *State) RecordFailure(r *StopResult) error { return s.census().RecordFailure(r) }
