package relaunch

import (
	"github.com/childproof/childproof/launcher"
	"github.com/childproof/childproof/spec"
)

// Base is what a relaunch takes from the recorded launch before
// anything is stopped (ReadBase).
// It is plain data, safe for concurrent use while no one changes it.
type Base struct {
	// Record is the recorded launch; nil when none can be read (Relaunch
	// then says why).
	Record *launcher.Record
	// Detach is how the relaunch runs unless told otherwise
	// (Options.Detach): as the recorded launch ran; in the foreground
	// when nothing is recorded.
	Detach bool
	// SpecChanged is set when the record names the hash of its spec file
	// and the spec has another one now: whatever the edit changes on the
	// worker is an unexpected delta of the relaunch.
	SpecChanged bool
}

// ReadBase reads what a relaunch of l starts from in s: the record of
// l.Name (rec when the caller has read it already, as State.SpecArg does;
// nil: it is read here), for the spec whose hash (spec.File.Hash) is
// specHash now ("": a launch built in Go, with no spec file).
func ReadBase(s *launcher.State, l *spec.Launch, specHash string, rec *launcher.Record) Base {
	if rec == nil {
		rec, _ = s.Load(l.Name)
	}
	if rec == nil {
		return Base{}
	}
	return Base{Record: rec, Detach: rec.Detached,
		SpecChanged: specHash != "" && rec.SpecHash != "" && rec.SpecHash != specHash}
}
