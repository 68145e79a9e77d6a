package readiness

// A Bell wakes a readiness wait when the tree prints a line: PollFd is
// the descriptor a wait polls (-1: none), Drain takes what rang and
// reports whether anything did. The launcher's is an eventfd; a nil Bell
// never rings. Its methods must be safe for concurrent use with the
// ringing.
type Bell interface {
	PollFd() int
	Drain() bool
}

// pollFd is b's descriptor, -1 for a nil b.
func pollFd(b Bell) int {
	if b == nil {
		return -1
	}
	return b.PollFd()
}

// drain is b.Drain, false for a nil b.
func drain(b Bell) bool {
	if b == nil {
		return false
	}
	return b.Drain()
}
