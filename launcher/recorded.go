package launcher

import (
	"github.com/childproof/childproof/launcher/recorded"
	"github.com/childproof/childproof/proc"
	"github.com/childproof/childproof/spec"
	"github.com/childproof/childproof/verify"
)

// recorded is s as package recorded reads it.
func (s *State) recorded() *recorded.State {
	return &recorded.State{Store: s.Store, ReadSpec: s.ReadSpec}
}

// RecordedCheck returns the check of a recorded launch of l, as verify
// SPEC, explain SPEC and up's adoption make it (recorded.Check).
func RecordedCheck(l *spec.Launch, rec *Record, p proc.FS) verify.Check {
	return recorded.Check(l, rec, p)
}
