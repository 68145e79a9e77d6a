package spec

import (
	"time"

	"github.com/childproof/childproof/internal/specrule"
)

// DefaultStopTimeout is how long a stop waits after the stop signal
// before SIGKILL when the spec's stop block names no timeout.
const DefaultStopTimeout = 10 * time.Second

// DefaultStopSignal is the stop signal of a launch without a stop block.
const DefaultStopSignal = "SIGTERM"

// StopSignals are the signal names stop.signal accepts.
var StopSignals = specrule.StopSignals

// Stop is the stop block: the first signal every stop of the launch
// sends (stop, down, relaunch, on_stale = "replace", supervision, the
// library's Stop), and how long it waits for the tree to exit before
// SIGKILL. It is plain data, safe for concurrent use while no one changes
// it.
type Stop struct {
	// Signal is one of StopSignals. Empty means DefaultStopSignal.
	Signal string
	// Timeout is the wait after Signal before SIGKILL. Zero means
	// DefaultStopTimeout.
	Timeout time.Duration
}

// EffectiveSignal returns Signal, or DefaultStopSignal when it is empty.
func (s Stop) EffectiveSignal() string {
	if s.Signal == "" {
		return DefaultStopSignal
	}
	return s.Signal
}

// EffectiveTimeout returns Timeout, or DefaultStopTimeout when it is zero
// or negative.
func (s Stop) EffectiveTimeout() time.Duration {
	if s.Timeout <= 0 {
		return DefaultStopTimeout
	}
	return s.Timeout
}

// Kind names the readiness probe r asks for: "http", "exec", "log", or
// "tcp" (none of them: a TCP connect to the declared ports).
func (r Ready) Kind() string {
	switch {
	case r.HTTP != "":
		return "http"
	case len(r.Exec) > 0:
		return "exec"
	case r.Log != "":
		return "log"
	}
	return "tcp"
}

// IsZero reports whether r is the zero Ready (a TCP connect within 10s).
func (r Ready) IsZero() bool {
	return r.HTTP == "" && len(r.Exec) == 0 && r.Log == "" && len(r.Status) == 0 && r.Timeout == 0
}

// StatusOK reports whether an HTTP answer with code is ready: one of
// Status, or 2xx when Status is empty.
func (r Ready) StatusOK(code int) bool {
	if len(r.Status) == 0 {
		return code >= 200 && code <= 299
	}
	for _, s := range r.Status {
		if s == code {
			return true
		}
	}
	return false
}

// DefaultLogKeep is how many earlier logs a launch keeps without a log
// block: NAME.log.1 (the last) to NAME.log.3.
const DefaultLogKeep = 3

// MaxLogKeep bounds log { keep }.
const MaxLogKeep = 100

// EffectiveLogKeep returns LogKeep, or DefaultLogKeep without one.
func (l *Launch) EffectiveLogKeep() int {
	if l.LogKeep == nil {
		return DefaultLogKeep
	}
	return *l.LogKeep
}

// IsEnvName reports whether s is a valid environment variable name,
// ^[A-Za-z_][A-Za-z0-9_]*$: the one rule for env keys, inherit, require,
// secret, alias names and --set.
func IsEnvName(s string) bool { return specrule.IsEnvName(s) }

// IsLaunchName reports whether s is a valid launch name:
// ^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$.
func IsLaunchName(s string) bool { return specrule.IsLaunchName(s) }
