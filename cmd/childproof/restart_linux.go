package main

import (
	"context"
	"fmt"
	"os"

	"github.com/childproof/childproof/cmd/childproof/internal/console"
	"github.com/childproof/childproof/launcher"
	"github.com/childproof/childproof/launcher/group"
	"github.com/childproof/childproof/schema"
)

// superviseRestarts is run's foreground supervision for a launch with a
// restart policy (group.SuperviseSignals): signals are forwarded as
// supervise does (and a SIGINT or SIGTERM means no restart); when the
// worker exits, the policy may start the launch again, verified exactly
// as the first start and recorded. The exit status is the last worker's.
func (a *app) superviseRestarts(ctx context.Context, la *launcher.Launch, opts launcher.Options, view *console.View, sigs chan os.Signal) error {
	l := la.Spec
	g := group.Of(la)
	esc := a.escalation(l.Name, g.Signal, func() int { return g.Launch(l.Name).Pid() })
	return g.SuperviseSignals(ctx, sigs, esc, group.Supervision{
		Restart: func(ctx context.Context, l *schema.Launch, n int) (*launcher.Launch, error) {
			return a.restart(ctx, l, opts, view, n)
		},
		// A restart, and giving up; the worker's own exit is run's exit
		// status, not a line.
		Event: func(e group.Event) {
			if e.Kind == group.EventRestarting || e.Kind == group.EventExited && e.Code != 0 && e.GaveUp {
				fmt.Fprintf(a.stderr, "childproof: %s\n", e)
			}
		},
	})
}
