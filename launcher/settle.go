package launcher

import (
	"time"

	"github.com/childproof/childproof/launcher/exectrace"
	"github.com/childproof/childproof/launcher/treeevents"
	"github.com/childproof/childproof/launcher/watchdog"
)

// Settle lets this process's helpers of foreground launches go at once
// rather than linger for the next launch: the watchdog (a small sh,
// which otherwise exits 2 s after the last launch ended), the exec
// tracer's idle threads (goroutines locked to their threads, which wait
// as long for the next traced start) and the proc connector's socket and
// its reader (kept out of the connector's group while no launch listens).
// It waits up to timeout and reports whether none is left. A launch still running keeps the watchdog: Settle
// is for a test that checks for leaked goroutines, threads, children or
// descriptors once its launches have been stopped (goleak's VerifyNone,
// a TestMain's last check). Safe for concurrent use.
func Settle(timeout time.Duration) bool {
	end := time.Now().Add(timeout)
	tracers := exectrace.LetIdleGo(timeout)
	events := treeevents.Settle(max(time.Until(end), 0))
	return watchdog.Settle(max(time.Until(end), 0)) && tracers && events
}
