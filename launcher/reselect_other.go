//go:build !linux

package launcher

import "github.com/childproof/childproof/proc"

// reselector: off Linux nothing is re-selected.
func (s *State) reselector() func(proc.FS, *Record) (*Record, string) { return nil }
