package launcher

import (
	"time"

	"golang.org/x/sys/unix"
)

// stopSignals maps the names schema.StopSignals lists to their signals.
var stopSignals = map[string]unix.Signal{
	"SIGTERM": unix.SIGTERM, "SIGINT": unix.SIGINT, "SIGQUIT": unix.SIGQUIT,
	"SIGHUP": unix.SIGHUP, "SIGUSR1": unix.SIGUSR1, "SIGUSR2": unix.SIGUSR2,
}

// StopSignalOf is the signal named name (one of schema.StopSignals), or
// SIGTERM for any other name (a record of an older childproof has none).
func StopSignalOf(name string) unix.Signal {
	if s, ok := stopSignals[name]; ok {
		return s
	}
	return unix.SIGTERM
}

// stopSignal is the first signal Terminate sends the tree: the launch's
// stop signal, SIGTERM when it names none.
func (t *procTree) stopSignal() unix.Signal {
	if t.stopSig == 0 {
		return unix.SIGTERM
	}
	return t.stopSig
}

// stopSignalName is the name of the launch's stop signal ("SIGTERM").
func (r *Record) stopSignalName() string {
	if _, ok := stopSignals[r.StopSignal]; ok {
		return r.StopSignal
	}
	return "SIGTERM"
}

// StopGrace is how long a stop of the recorded launch waits after its
// stop signal before SIGKILL: the spec's stop.timeout it was launched
// with, else DefaultStopGrace.
func (r *Record) StopGrace() time.Duration {
	if d, err := time.ParseDuration(r.StopTimeout); err == nil && d > 0 {
		return d
	}
	return DefaultStopGrace
}

// stopGrace is timeout when it is positive (stop --timeout), else the
// record's own (StopGrace).
func (r *Record) stopGrace(timeout time.Duration) time.Duration {
	if timeout > 0 {
		return timeout
	}
	return r.StopGrace()
}
