//go:build !linux

package census

import (
	"github.com/childproof/childproof/launcher/statedir"
	"github.com/childproof/childproof/proc"
	"github.com/childproof/childproof/verify"
)

// Off Linux nothing launches: no tree has members, no process a marker.

// LiveMembers lists the live processes of a recorded launch's tree: none
// off Linux.
func LiveMembers(p proc.FS, rec *statedir.Record) []int { return nil }

// forkedMembers: off Linux no launch forks a daemon.
func forkedMembers(p proc.FS, rec *statedir.Record) []int { return nil }

// MembersNote says what is left of a launch whose worker is gone: nothing
// off Linux.
func MembersNote(pids []int) string { return "" }

// sweepCgroups: off Linux childproof makes no cgroup.
func (s *State) sweepCgroups(string, string) {}

// collectRelay: off Linux no relay runs.
func (s *State) collectRelay(name string, fp *verify.Fingerprint, p proc.FS) string { return "" }
