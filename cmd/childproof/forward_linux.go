package main

import (
	"fmt"
	"syscall"

	"github.com/childproof/childproof/launcher"
	"github.com/childproof/childproof/launcher/group"
)

// foregroundStopGrace is how long a foreground worker has after a
// forwarded SIGINT or SIGTERM, and then after SIGTERM, before the next
// step (run), and each launch after SIGTERM before SIGKILL when up stops
// them (group.Supervision.WaitDelay): the default of 'stop --timeout'.
var foregroundStopGrace = launcher.DefaultStopGrace

// escalation is the stop of the foreground launch name on the caller's
// signals (group.Escalation: forwarded, then SIGTERM, then SIGKILL),
// each step said on stderr with its worker's pid.
func (a *app) escalation(name string, signal func(syscall.Signal), pid func() int) *group.Escalation {
	return &group.Escalation{Signal: signal, Grace: foregroundStopGrace, Step: func(step group.EscalationStep, sig syscall.Signal) {
		switch step {
		case group.Forwarded:
			fmt.Fprintf(a.stderr, "childproof: forwarded %s to %s (worker pid %d); again (or in %s) to stop it: SIGTERM, then SIGKILL\n", sigName(sig), name, pid(), foregroundStopGrace)
		case group.Terminated:
			fmt.Fprintf(a.stderr, "childproof: %s (worker pid %d) still runs: sent SIGTERM; SIGKILL at the next Ctrl-C or in %s\n", name, pid(), foregroundStopGrace)
		default:
			fmt.Fprintf(a.stderr, "childproof: %s (worker pid %d) still runs: sent SIGKILL\n", name, pid())
		}
	}}
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
