package main

import (
	"fmt"
	"syscall"
	"time"

	"github.com/childproof/childproof/launcher"
	"github.com/childproof/childproof/launcher/group"
	"github.com/childproof/childproof/launcher/sigtree"
	"github.com/childproof/childproof/schema"
)

// foregroundStopGrace is how long a foreground worker has after a
// forwarded SIGINT or SIGTERM, and then after SIGTERM, before the next
// step (run), and each launch after SIGTERM before SIGKILL when up stops
// them (group.Supervision.WaitDelay): the default of 'stop --timeout'.
var foregroundStopGrace = launcher.DefaultStopGrace

// escalation is the stop of the foreground launch l on the caller's
// signals (group.Escalation: forwarded, then its stop signal, then
// SIGKILL, each after its stop timeout), each step said on stderr with
// its worker's pid.
func (a *app) escalation(l *schema.Launch, signal func(syscall.Signal), pid func() int) *group.Escalation {
	name, grace := l.Name, foregroundGrace(l)
	e := &group.Escalation{Signal: signal, Grace: grace}
	if l.Stop.Signal != "" {
		e.Term = sigtree.StopSignalOf(l.Stop.Signal)
	}
	e.Step = func(step group.EscalationStep, sig syscall.Signal) {
		switch {
		case step == group.Forwarded:
			fmt.Fprintf(a.stderr, "childproof: forwarded %s to %s (worker pid %d); again (or in %s) to stop it: SIGTERM, then SIGKILL\n", sigName(sig), name, pid(), grace)
		case step == group.Terminated && e.Term != 0:
			fmt.Fprintf(a.stderr, "childproof: sent %s (stop.signal) to %s (worker pid %d); again (or in %s) to SIGKILL it\n", l.Stop.Signal, name, pid(), grace)
		case step == group.Terminated:
			fmt.Fprintf(a.stderr, "childproof: %s (worker pid %d) still runs: sent SIGTERM; SIGKILL at the next Ctrl-C or in %s\n", name, pid(), grace)
		default:
			fmt.Fprintf(a.stderr, "childproof: %s (worker pid %d) still runs: sent SIGKILL\n", name, pid())
		}
	}
	return e
}

// foregroundGrace is how long each step of l's foreground stop has:
// its stop.timeout, or foregroundStopGrace without a stop block.
func foregroundGrace(l *schema.Launch) time.Duration {
	if l.Stop.Timeout > 0 {
		return l.Stop.Timeout
	}
	return foregroundStopGrace
}

// sigName is "SIGINT" for syscall.SIGINT.
func sigName(s syscall.Signal) string {
	switch s {
	case syscall.SIGINT:
		return "SIGINT"
	case syscall.SIGTERM:
		return "SIGTERM"
	case syscall.SIGHUP:
		return "SIGHUP"
	}
	return s.String()
}
