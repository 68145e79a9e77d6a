package group_test

import (
	"context"
	"errors"
	"os"
	"syscall"
	"testing"
	"time"

	"github.com/childproof/childproof/launcher"
	"github.com/childproof/childproof/launcher/group"
	"github.com/childproof/childproof/outcome"
	"github.com/childproof/childproof/schema"
)

// TestEscalation: the first signal is forwarded as it is, the next ones
// escalate to SIGTERM, then SIGKILL (again at each one after), and Grace
// takes the next step when no signal comes; nothing after Close.
func TestEscalation(t *testing.T) {
	type step struct {
		step group.EscalationStep
		sig  syscall.Signal
	}
	steps := make(chan step, 16)
	sent := make(chan syscall.Signal, 16)
	esc := func(grace time.Duration) *group.Escalation {
		return &group.Escalation{Grace: grace,
			Signal: func(s syscall.Signal) { sent <- s },
			Step:   func(st group.EscalationStep, s syscall.Signal) { steps <- step{st, s} }}
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
	next("first Ctrl-C", step{group.Forwarded, syscall.SIGINT})
	e.Next(syscall.SIGINT)
	next("second Ctrl-C", step{group.Terminated, syscall.SIGTERM})
	e.Next(syscall.SIGTERM)
	next("third", step{group.Killed, syscall.SIGKILL})
	e.Next(syscall.SIGINT)
	next("fourth", step{group.Killed, syscall.SIGKILL})
	e.Close()
	e.Next(syscall.SIGINT)
	if len(steps) != 0 || len(sent) != 0 {
		t.Errorf("a step after Close: %v", <-steps)
	}

	// By the grace alone, after one SIGTERM; then nothing more.
	e = esc(time.Millisecond)
	e.Next(syscall.SIGTERM)
	next("SIGTERM", step{group.Forwarded, syscall.SIGTERM})
	next("grace", step{group.Terminated, syscall.SIGTERM})
	next("grace again", step{group.Killed, syscall.SIGKILL})
	e.Close()
	if len(steps) != 0 {
		t.Errorf("a step after SIGKILL without a signal: %v", <-steps)
	}

	// A launch with a stop signal of its own (stop { signal = "SIGQUIT" }):
	// the caller's signal becomes it, the next step is SIGKILL.
	e = esc(time.Hour)
	e.Term = syscall.SIGQUIT
	e.Next(syscall.SIGTERM)
	next("SIGTERM with a stop signal", step{group.Terminated, syscall.SIGQUIT})
	e.Next(syscall.SIGINT)
	next("then", step{group.Killed, syscall.SIGKILL})
	e.Close()
}

// TestForward: a foreground launch whose worker ignores SIGINT gets the
// first Ctrl-C as it is and keeps running; the second is SIGTERM, and
// Forward returns the worker's status as an *ExitError that exits with
// it (outcome.ExitCode).
func TestForward(t *testing.T) {
	t.Parallel()
	l := chain(t)[2] // db: no dependency
	l.Env = map[string]string{"SRV_IGNORE_INT": "1"}
	dir := t.TempDir()
	g, err := group.Up(t.Context(), []*schema.Launch{l}, func(*schema.Launch) launcher.Options { return launcher.Options{StateDir: dir} })
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { g.Down(context.Background()) })
	la := g.Launch(l.Name)
	sigs := make(chan os.Signal, 1)
	steps := make(chan group.EscalationStep, 4)
	esc := &group.Escalation{Signal: la.Signal, Grace: time.Hour, Step: func(s group.EscalationStep, _ syscall.Signal) { steps <- s }}
	res := make(chan error, 1)
	go func() { res <- group.Forward(la, sigs, esc) }()
	step := func(want group.EscalationStep) {
		t.Helper()
		select {
		case s := <-steps:
			if s != want {
				t.Fatalf("step %v, want %v", s, want)
			}
		case <-time.After(30 * time.Second):
			t.Fatalf("no step %v", want)
		}
	}
	sigs <- syscall.SIGINT
	step(group.Forwarded)
	// The worker ignores SIGINT: it still answers.
	if _, err := la.Verify(t.Context()); err != nil {
		t.Fatalf("after the forwarded SIGINT: %v", err)
	}
	select {
	case err := <-res:
		t.Fatalf("group.Forward returned after a forwarded SIGINT the worker ignores: %v", err)
	default:
	}
	sigs <- syscall.SIGINT
	step(group.Terminated)
	select {
	case err = <-res:
	case <-time.After(30 * time.Second):
		t.Fatal("SIGTERM did not end the launch")
	}
	var xe *group.ExitError
	if !errors.As(err, &xe) || *xe != (group.ExitError{Name: l.Name, Code: 143}) || outcome.ExitCode(err) != 143 {
		t.Fatalf("group.Forward: %v (exit %d), want db's status 143", err, outcome.ExitCode(err))
	}
}
