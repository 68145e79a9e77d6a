package sigtree

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
func (t *Tree) stopSignal() unix.Signal {
	if t.StopSig == 0 {
		return unix.SIGTERM
	}
	return t.StopSig
}

// StopSignalName is name when it is one of schema.StopSignals, else
// "SIGTERM" (the name of the signal StopSignalOf gives).
func StopSignalName(name string) string {
	if _, ok := stopSignals[name]; ok {
		return name
	}
	return "SIGTERM"
}
