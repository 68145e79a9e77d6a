package launcher

import (
	"time"

	"golang.org/x/sys/unix"
)

// settle is how long a worker without a port must run before it counts
// as started: with nothing to listen on and no readiness check, a program
// that exits at once (command = ["true"]) would otherwise be verified or
// not by a race with the check, and read differently in the foreground
// and detached.
const settle = 100 * time.Millisecond

// settleWorker waits until the worker has run for settle since started
// (at most the ready timeout), returning early if it exits.
func (la *Launch) settleWorker(wfd int, started time.Time) {
	d := time.Until(started.Add(min(settle, la.Spec.ReadyTimeout())))
	if d <= 0 {
		return
	}
	unix.Poll([]unix.PollFd{{Fd: int32(wfd), Events: unix.POLLIN}}, max(int(d/time.Millisecond), 1))
}
