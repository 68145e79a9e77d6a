package main

import (
	"context"
	"fmt"
	"os"
	"sync/atomic"

	"github.com/childproof/childproof/launcher"
)

// superviseRestarts is run's foreground supervision for a launch with a
// restart policy: signals are forwarded as supervise does (and a SIGINT or
// SIGTERM means no restart); when the worker exits, the policy may start
// the launch again, verified exactly as the first start and recorded.
// The exit status is the last worker's.
func (a *app) superviseRestarts(ctx context.Context, la *launcher.Launch, opts launcher.Options, view *launchView, sigs chan os.Signal) error {
	l := la.Spec
	var stopping atomic.Bool
	ctx = context.WithoutCancel(ctx)
	for n := 0; ; n++ {
		done := make(chan struct{})
		f := &signalForwarder{stderr: a.stderr, name: l.Name, la: la, onStop: func() { stopping.Store(true) }}
		go f.run(sigs, done)
		code := la.Wait().ExitCode()
		close(done)
		d, again := l.Restart.Next(code, n)
		if !again || stopping.Load() {
			opts.State.NoteExit(l.Name, code)
			if code != 0 && n > 0 && n >= l.Restart.EffectiveMax() {
				fmt.Fprintf(a.stderr, "childproof: %s exited with status %d after %s: giving up (max %d)\n", l.Name, code, plural(n, "restart"), l.Restart.EffectiveMax())
			}
			if code != 0 {
				return silentExit(code)
			}
			return nil
		}
		fmt.Fprintf(a.stderr, "childproof: %s exited with status %d; restart %d of %d in %s\n", l.Name, code, n+1, l.Restart.EffectiveMax(), d)
		if _, ok := sleepOrSignal(d, sigs); !ok {
			return silentExit(code)
		}
		next, err := a.restart(ctx, l, opts, view, n+1, code)
		if err != nil {
			return err
		}
		la = next
	}
}
