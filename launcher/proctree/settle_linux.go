package proctree

import (
	"context"
	"time"

	"github.com/childproof/childproof/internal/fdwait"
	"github.com/childproof/childproof/proc"
)

// settle is how long a worker without a port must run before it counts
// as started: with nothing to listen on and no readiness check, a program
// that exits at once (command = ["true"]) would otherwise be verified or
// not by a race with the check, and read differently in the foreground
// and detached.
const settle = 100 * time.Millisecond

// Settle waits until the worker has run for settle since it was
// released (the exec tracer let go of it: a worker stopped at its exec
// for the capture has not run its program yet), returning early if it
// exits (wfd is its pidfd). Wall-clock time alone is no evidence that it
// ran: on a loaded machine a program that exits at once may not have been
// scheduled yet. So it also waits, polling, until the worker has shown
// that it is running its program: it sleeps (state S, as a server waiting
// for work does), or it has used a clock tick of CPU since Settle first
// looked (a busy job). The tick is counted from that first look, not from
// zero: the exec itself is charged to the worker (its system time, more
// than a tick on a loaded machine), so a program that exits at once could
// otherwise read as running. It gives up waiting at the ready deadline,
// as readiness does.
func Settle(p proc.FS, worker, wfd int, released, deadline time.Time) {
	fds := fdwait.New(wfd)
	defer fds.Close()
	wait := func(until time.Time) bool {
		if !time.Now().Before(until) {
			return false
		}
		return !fds.Wait(context.Background(), until) // false: it exited
	}
	var base uint64
	if st, err := p.Stat(worker); err == nil {
		base = st.CPUTicks
	}
	first := released.Add(settle)
	if deadline.Before(first) {
		first = deadline
	}
	if !wait(first) && time.Now().Before(first) {
		return // it exited
	}
	for time.Now().Before(deadline) {
		st, err := p.Stat(worker)
		if err != nil || st.State == 'Z' || st.State == 'X' {
			return
		}
		if st.State == 'S' || st.CPUTicks > base {
			return
		}
		if !wait(time.Now().Add(5 * time.Millisecond)) {
			return
		}
	}
}
