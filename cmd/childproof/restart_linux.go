package main

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/childproof/childproof/cmd/childproof/internal/console"
	"github.com/childproof/childproof/launcher"
	"github.com/childproof/childproof/launcher/group"
	"github.com/childproof/childproof/schema"
	"github.com/childproof/childproof/verify"
)

// superviseRestarts is run's foreground supervision for a launch with a
// restart policy (group.SuperviseSignals): signals are forwarded as
// supervise does (and a SIGINT or SIGTERM means no restart); when the
// worker exits, the policy may start the launch again with opts, verified
// exactly as the first start and recorded. The exit status is the last
// worker's.
func (a *app) superviseRestarts(ctx context.Context, la *launcher.Launch, opts launcher.Options, view *console.View, sigs chan os.Signal) error {
	l := la.Spec
	g := group.Of(la)
	esc := a.escalation(l, g.Signal, func() int { return g.Launch(l.Name).Pid() })
	views := map[string]*console.View{l.Name: view}
	return a.supervisionErr(g.SuperviseSignals(ctx, sigs, esc, group.Supervision{
		Options: func(*schema.Launch) launcher.Options { return opts },
		// Restarts, and giving up; the worker's own exit is run's exit
		// status, not a line.
		Event: func(e group.Event) {
			if e.Kind == group.EventStopping || e.Kind == group.EventExited && (e.Code == 0 || !e.GaveUp) {
				return
			}
			a.launchEvent(e, views, "childproof: ")
		},
	}))
}

// launchEvent shows what up's or run's group did (group.Event.String,
// after prefix; a restart's after "childproof: "): a start's end ends its
// view's wait, and a verified (or adopted) launch's report and a failed
// restart's go to stdout.
func (a *app) launchEvent(e group.Event, views map[string]*console.View, prefix string) {
	switch e.Kind {
	case group.EventStarted, group.EventStartFailed, group.EventRestarted, group.EventRestartFailed:
		views[e.Name].Started()
	}
	if e.Kind == group.EventRestarted || e.Kind == group.EventRestartFailed {
		prefix = "childproof: "
	}
	if s := e.String(); s != "" {
		fmt.Fprintf(a.stderr, "%s%s\n", prefix, s)
	}
	var le *launcher.Error
	switch {
	case e.Kind == group.EventAdopted:
		a.writeReport(a.stdout, e.Report)
	case e.Kind == group.EventStarted, e.Kind == group.EventRestarted:
		a.writeReport(a.stdout, e.Launch.Report)
	case e.Kind == group.EventRestartFailed && errors.As(e.Err, &le) && le.Report != nil:
		a.writeReport(a.stdout, le.Report)
	}
}

// supervisionErr is the command's error for a supervision's: a failed
// restart's is its launch error (launchErr; launchEvent showed its
// report).
func (a *app) supervisionErr(err error) error {
	var re *group.RestartError
	if errors.As(err, &re) {
		return a.launchErrWith(re.Err, func(*verify.Report) {})
	}
	return err
}
