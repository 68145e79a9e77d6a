package launcher

import (
	"errors"

	"github.com/childproof/childproof/launcher/statedir"
	"github.com/childproof/childproof/outcome"
	"github.com/childproof/childproof/spec"
)

// State is an opened state directory, as a command reads it back: its
// storage (records, logs, locks and the digest key) and how to read a
// recorded launch's spec file again. It is safe for concurrent use, by
// goroutines as by processes (what it writes is guarded by locks on disk);
// ReadSpec is set before first use.
type State struct {
	// Store is the state dir's storage; Dir is its directory.
	*statedir.Store
	// ReadSpec reads a recorded launch's spec file again, for what a
	// record alone does not say: the secrets its spec declares (ReadLog
	// masks them) and its worker selector (Census re-selects a respawned
	// worker). Nil: no spec file is read; ReadLog masks what the record
	// and the log mask name, and Census does not re-select. The childproof
	// command sets it to schema.ReadLaunch, so that this package links no
	// HCL.
	ReadSpec SpecReader
}

// SpecReader reads the launch called name from the spec file at path, as
// a command that launches nothing reads it (an env() the caller did not
// set is unknown, a missing program is no error), with vars as the
// spec's variables.
type SpecReader func(path, name string, vars map[string]string) (*spec.Launch, error)

// OpenState opens the state dir dir as statedir.Open does; "" is the
// default, statedir.DefaultDir. A state dir that is not safe to use is an
// *Error naming it. A digest key that is empty or corrupt is KeyErr's
// error, not OpenState's.
func OpenState(dir string) (*State, error) {
	s, err := statedir.Open(dir)
	if err != nil {
		return nil, err
	}
	return &State{Store: s}, nil
}

// launchState is the state a launch records in: st, or the state dir dir
// opened; either way its digest key must be usable.
func launchState(st *State, dir string) (*State, error) {
	if st == nil {
		var err error
		if st, err = OpenState(dir); err != nil {
			var e *Error
			if errors.As(err, &e) {
				return nil, err
			}
			return nil, &Error{Outcome: outcome.Usage, Msg: "state dir", Err: err}
		}
	}
	if err := st.KeyErr(); err != nil {
		return nil, err
	}
	return st, nil
}
