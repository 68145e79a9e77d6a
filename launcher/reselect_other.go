//go:build !linux

package launcher

import (
	"github.com/childproof/childproof/proc"
	"github.com/childproof/childproof/spec"
	"github.com/childproof/childproof/verify"
)

// Off Linux nothing launches: no worker role has a process.
func recordedOwners(p proc.FS, l *spec.Launch, rec *Record) map[int]verify.PortOwners { return nil }

// reselector: off Linux nothing is re-selected.
func (s *State) reselector() func(proc.FS, *Record) (*Record, string) { return nil }
