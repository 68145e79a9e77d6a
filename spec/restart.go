package spec

import "time"

// MaxRestartBackoff caps the doubling restart backoff (unless the spec's
// backoff is longer: then that is the wait every time).
const MaxRestartBackoff = 30 * time.Second

// Next decides whether a worker that exited with code is started again
// after n restarts so far, and how long to wait first: the backoff,
// doubled after each restart, capped at MaxRestartBackoff. A stop that
// was asked for (a signal, up stopping) is the caller's: then nothing
// restarts, whatever Next says.
func (r Restart) Next(code, n int) (time.Duration, bool) {
	if n >= r.EffectiveMax() {
		return 0, false
	}
	switch r.EffectivePolicy() {
	case RestartAlways:
	case RestartOnFailure:
		if code == 0 {
			return 0, false
		}
	default:
		return 0, false
	}
	base := r.EffectiveBackoff()
	d := base
	for i := 0; i < n && d < MaxRestartBackoff; i++ {
		d *= 2
	}
	return min(d, max(MaxRestartBackoff, base)), true
}
