package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"syscall"

	"github.com/childproof/childproof/launcher"
	"github.com/childproof/childproof/launcher/group"
	"github.com/childproof/childproof/outcome"
	"github.com/childproof/childproof/schema"
)

// superviseRestarts is run's foreground supervision for a launch with a
// restart policy (group.Supervise): signals are forwarded as supervise
// does (and a SIGINT or SIGTERM means no restart); when the worker exits,
// the policy may start the launch again, verified exactly as the first
// start and recorded. The exit status is the last worker's.
func (a *app) superviseRestarts(ctx context.Context, la *launcher.Launch, opts launcher.Options, view *launchView, sigs chan os.Signal) error {
	l := la.Spec
	g := group.Of(la)
	ctx, stop := context.WithCancel(context.WithoutCancel(ctx))
	defer stop()
	f := &signalForwarder{stderr: a.stderr, name: l.Name, signal: g.Signal, pid: func() int { return g.Launch(l.Name).Pid() }}
	// The first SIGINT or SIGTERM ends the restarts; Supervise has it
	// forwarded (Cancel) while the launch runs.
	var first syscall.Signal
	finished := make(chan struct{})
	defer close(finished)
	go relaySignals(sigs, g.Signal, func(sig syscall.Signal) {
		if ctx.Err() == nil {
			first = sig // read by Cancel, once Supervise saw ctx done
			stop()
			return
		}
		f.next(sig)
	}, finished)
	defer f.close()
	err := g.Supervise(ctx, group.Supervision{
		Restart: func(ctx context.Context, l *schema.Launch, n int) (*launcher.Launch, error) {
			return a.restart(ctx, l, opts, view, n)
		},
		Cancel: func() { f.next(first) },
		Event: func(e group.Event) {
			switch {
			case e.Kind == group.EventRestarting:
				fmt.Fprintf(a.stderr, "childproof: %s exited with status %d; restart %d of %d in %s\n", e.Name, e.Code, e.Restart, e.Max, e.Delay)
			case e.Kind == group.EventExited && e.Code != 0 && e.GaveUp:
				fmt.Fprintf(a.stderr, "childproof: %s exited with status %d after %s: giving up (max %d)\n", e.Name, e.Code, plural(e.Restart, "restart"), e.Max)
			}
		},
	})
	return supervisionErr(err)
}

// relaySignals hands the caller's signals on until done is closed:
// SIGHUP to hup (forwarded to what runs), each SIGINT or SIGTERM to stop.
func relaySignals(sigs <-chan os.Signal, hup, stop func(syscall.Signal), done <-chan struct{}) {
	for {
		select {
		case s := <-sigs:
			if sig := s.(syscall.Signal); sig == syscall.SIGHUP {
				hup(sig)
			} else {
				stop(sig)
			}
		case <-done:
			return
		}
	}
}

// supervisionErr is the exit of group.Supervise's result: a worker's
// status (already said), or the failed restart's error as restart made it.
func supervisionErr(err error) error {
	var xe *group.ExitError
	var re *group.RestartError
	switch {
	case errors.As(err, &xe):
		return outcome.Status(xe.Code)
	case errors.As(err, &re):
		return re.Err
	}
	return err
}
