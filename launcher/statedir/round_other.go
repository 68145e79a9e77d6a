//go:build !linux

package statedir

// NoteGone records a gone worker's end in the round history; off Linux
// nothing launches, so there is no round to end.
func (s *Store) NoteGone(string, int) {}
