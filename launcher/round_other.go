//go:build !linux

package launcher

// noteGone records a gone worker's end in the round history; off Linux
// nothing launches, so there is no round to end.
func (s *State) noteGone(string, int) {}

// sweepCgroups: off Linux childproof makes no cgroup.
func (s *State) sweepCgroups(string, string) {}
