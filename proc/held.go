package proc

import "sync"

// held is one process's records held open by Hold: its /proc directory
// and its stat, both descriptors of that very process (a record read
// through them after it was reaped fails; one whose pid another process
// took never reads the newcomer). Reads take mu shared; release takes it
// alone, so no read uses a descriptor after it is closed.
type held struct {
	pid  int
	mu   sync.RWMutex
	dir  int // -1 once released
	stat int
}

// heldOf is p's held records when they are pid's, else nil.
func (p FS) heldOf(pid int) *held {
	if p.held != nil && p.held.pid == pid {
		return p.held
	}
	return nil
}
