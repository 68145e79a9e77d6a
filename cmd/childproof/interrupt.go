package main

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/childproof/childproof/outcome"
)

// signalCtxKey marks the context signalContext makes: only a childproof
// process's own run arms the interrupt watchdog, never a test that calls
// run in its own process.
type signalCtxKey struct{}

// interruptGrace is how long a command that starts and stops nothing may
// take to end after SIGINT or SIGTERM before childproof exits anyway.
const interruptGrace = 2 * time.Second

// launchingCommands end on a signal by stopping what they started (which
// may take a launch's stop timeout): the watchdog leaves them alone.
var launchingCommands = map[string]bool{"run": true, "relaunch": true, "up": true, "down": true, "stop": true}

// armWatchdog makes sure command ends once ctx (the signal context) is
// done: if it has not returned interruptGrace later, it says so on stderr
// and calls exit with the Interrupted code (130) — a read, an evaluation or
// a loop that does not watch ctx cannot keep childproof alive past the
// signal. Call disarm when the command returns.
func armWatchdog(ctx context.Context, command string, stderr io.Writer, exit func(int)) (disarm func()) {
	done := make(chan struct{})
	go func() {
		select {
		case <-done:
			return
		case <-ctx.Done():
		}
		t := time.NewTimer(interruptGrace)
		defer t.Stop()
		select {
		case <-done:
		case <-t.C:
			fmt.Fprintf(stderr, "childproof: error: interrupted: %s did not end within %s of the signal\n", command, interruptGrace)
			exit(outcome.Interrupted.Code())
		}
	}()
	return func() { close(done) }
}
