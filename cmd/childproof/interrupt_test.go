package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"
)

// TestWatchdogExitsStuckCommand: a command still running the grace after
// the signal is ended with exit 130 and a message; one that returns in
// time is not, nor one that opened the state dir (it ends by its own
// means, stopping what it started). The grace is 200ms here, not
// interruptGrace: the test waits it out three times, and it runs alone
// before the package's parallel tests.
func TestWatchdogExitsStuckCommand(t *testing.T) {
	const grace = 200 * time.Millisecond
	// In-process tests of other commands opened state dirs: this one has not.
	stateOpened.Lock()
	stateOpened.yes = false
	stateOpened.Unlock()
	ctx, cancel := context.WithCancel(context.Background())
	var stderr bytes.Buffer
	codes := make(chan int, 1)
	disarm := armWatchdog(ctx, "check", grace, &stderr, func(code int) { codes <- code })
	defer disarm()
	cancel()
	select {
	case code := <-codes:
		if code != 130 || !strings.Contains(stderr.String(), "childproof: error: interrupted: check did not end within 200ms of the signal") {
			t.Errorf("exit %d, stderr %q", code, stderr.String())
		}
	case <-time.After(grace + 30*time.Second):
		t.Fatal("the watchdog did not end a stuck command")
	}

	ctx2, cancel2 := context.WithCancel(context.Background())
	disarm2 := armWatchdog(ctx2, "ps", grace, &stderr, func(code int) { codes <- code })
	cancel2()
	disarm2() // the command returned at once
	select {
	case code := <-codes:
		t.Errorf("the watchdog exited (%d) a command that had returned", code)
	case <-time.After(grace + 500*time.Millisecond):
	}

	ctx3, cancel3 := context.WithCancel(context.Background())
	disarm3 := armWatchdog(ctx3, "run", grace, &stderr, func(code int) { codes <- code })
	defer disarm3()
	openingState()
	defer func() { stateOpened.Lock(); stateOpened.yes = false; stateOpened.Unlock() }()
	cancel3()
	select {
	case code := <-codes:
		t.Errorf("the watchdog exited (%d) a command that had opened the state dir", code)
	case <-time.After(grace + 500*time.Millisecond):
	}
}
