package main

import (
	"context"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/childproof/childproof/outcome"
)

// signalCtxKey marks the context signalContext makes: only a childproof
// process's own run arms the interrupt watchdog, never a test that calls
// run in its own process.
type signalCtxKey struct{}

// interruptGrace is how long a command may take to end after SIGINT or
// SIGTERM, while it has not opened the state dir, before childproof exits
// anyway.
const interruptGrace = 2 * time.Second

// stateOpened is set (under its lock) once the command opens the state
// dir: from then on it may stop or start processes and record them, and it
// ends on the signal by its own means (stopping what it started, up to a
// launch's stop timeout), never by the watchdog's exit.
var stateOpened struct {
	sync.Mutex
	yes bool
}

// openingState tells the watchdog that the command is about to open the
// state dir. It waits while the watchdog is exiting, so nothing is started
// or stopped by a command the watchdog ends.
func openingState() {
	stateOpened.Lock()
	stateOpened.yes = true
	stateOpened.Unlock()
}

// armWatchdog makes sure command ends once ctx (the signal context) is
// done: if it has not returned interruptGrace later and has not opened
// the state dir, it says so on stderr and calls exit with the Interrupted
// code (130) — a read, an evaluation or a loop that does not watch ctx
// (loading a spec, linting a script) cannot keep childproof alive past
// the signal. Call disarm when the command returns. grace is
// interruptGrace but in tests.
func armWatchdog(ctx context.Context, command string, grace time.Duration, stderr io.Writer, exit func(int)) (disarm func()) {
	done := make(chan struct{})
	go func() {
		select {
		case <-done:
			return
		case <-ctx.Done():
		}
		t := time.NewTimer(grace)
		defer t.Stop()
		select {
		case <-done:
		case <-t.C:
			stateOpened.Lock()
			defer stateOpened.Unlock()
			if stateOpened.yes {
				return
			}
			fmt.Fprintf(stderr, "childproof: error: interrupted: %s did not end within %s of the signal\n", command, grace)
			exit(outcome.Interrupted.Code())
		}
	}()
	return func() { close(done) }
}
