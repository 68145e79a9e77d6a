package main

import (
	"time"

	"github.com/childproof/childproof/schema"
)

// maxBackoff caps the exponential restart backoff (unless the spec's
// backoff is longer: then that is the wait every time).
const maxBackoff = 30 * time.Second

// restartAfter decides, by the launch's restart policy, whether a worker
// that exited with code is started again after n restarts so far, and how
// long to wait first: backoff, doubled after each restart, capped at
// maxBackoff. stopping is set when the exit was asked for (a signal, up
// stopping): then nothing restarts.
func restartAfter(r schema.Restart, code, n int, stopping bool) (time.Duration, bool) {
	if stopping || n >= r.EffectiveMax() {
		return 0, false
	}
	switch r.EffectivePolicy() {
	case schema.RestartAlways:
	case schema.RestartOnFailure:
		if code == 0 {
			return 0, false
		}
	default:
		return 0, false
	}
	base := r.EffectiveBackoff()
	d := base
	for i := 0; i < n && d < maxBackoff; i++ {
		d *= 2
	}
	return min(d, max(maxBackoff, base)), true
}
