package group

import (
	"syscall"
	"testing"
	"time"
)

// TestEscalation: the first signal is forwarded as it is, the next ones
// escalate to SIGTERM, then SIGKILL (again at each one after), and Grace
// takes the next step when no signal comes; nothing after Close.
func TestEscalation(t *testing.T) {
	type step struct {
		step EscalationStep
		sig  syscall.Signal
	}
	steps := make(chan step, 16)
	sent := make(chan syscall.Signal, 16)
	esc := func(grace time.Duration) *Escalation {
		return &Escalation{Grace: grace,
			Signal: func(s syscall.Signal) { sent <- s },
			Step:   func(st EscalationStep, s syscall.Signal) { steps <- step{st, s} }}
	}
	next := func(what string, want step) {
		t.Helper()
		select {
		case got := <-steps:
			if got != want {
				t.Errorf("%s: step %v, want %v", what, got, want)
			}
			if s := <-sent; s != want.sig {
				t.Errorf("%s: sent %v, said %v", what, s, want.sig)
			}
		case <-time.After(30 * time.Second):
			t.Fatalf("%s: no step %v", what, want)
		}
	}

	// By the caller's signals (a grace that never runs out here).
	e := esc(time.Hour)
	e.Next(syscall.SIGINT)
	next("first Ctrl-C", step{Forwarded, syscall.SIGINT})
	e.Next(syscall.SIGINT)
	next("second Ctrl-C", step{Terminated, syscall.SIGTERM})
	e.Next(syscall.SIGTERM)
	next("third", step{Killed, syscall.SIGKILL})
	e.Next(syscall.SIGINT)
	next("fourth", step{Killed, syscall.SIGKILL})
	e.Close()
	e.Next(syscall.SIGINT)
	if len(steps) != 0 || len(sent) != 0 {
		t.Errorf("a step after Close: %v", <-steps)
	}

	// By the grace alone, after one SIGTERM; then nothing more.
	e = esc(time.Millisecond)
	e.Next(syscall.SIGTERM)
	next("SIGTERM", step{Forwarded, syscall.SIGTERM})
	next("grace", step{Terminated, syscall.SIGTERM})
	next("grace again", step{Killed, syscall.SIGKILL})
	e.Close()
	if len(steps) != 0 {
		t.Errorf("a step after SIGKILL without a signal: %v", <-steps)
	}
}
