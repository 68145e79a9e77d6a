package launcher

import (
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

// stopSignalName is the name of the recorded launch's stop signal ("SIGTERM").
func stopSignalName(r *Record) string {
	if _, ok := stopSignals[r.StopSignal]; ok {
		return r.StopSignal
	}
	return "SIGTERM"
}
