package failure

import (
	"errors"
	"strings"

	"github.com/childproof/childproof/outcome"
	"github.com/childproof/childproof/spec"
	"github.com/childproof/childproof/verify"
)

// Error is a launch or verification failure: its Outcome, and the Report
// with the evidence gathered up to the failure when there is one. A Go
// caller reads its fields (Outcome, Fix, Name, Pid, Port, Tail, Err)
// rather than its text. Outcome is its one kind: what each check found is
// in the Report, by problem kind. It is plain data, safe for concurrent
// use while no one changes it.
type Error struct {
	// Outcome is how the call ended (outcome.Usage: nothing was
	// started; outcome.Unproven: the worker's own records do not show
	// what the launch declared; …); a library caller switches on it, and
	// the childproof command exits with its code (outcome.ExitCode). With
	// a Report, it is the Report's.
	Outcome outcome.Kind
	// Name is the launch's name ("": not known, a nil launch).
	Name string
	// Pid is the launched process the failure is about: the worker once
	// found, else the tree's root; 0 when nothing was started.
	Pid int
	// Port is the declared port the failure is about (held by another
	// process); 0: none in particular.
	Port int
	Msg  string
	// Hint is what a Go caller can do about the failure, in Go words
	// (Options fields, launch fields by their Go names); "": nothing to
	// add. The childproof command words its own hint from Fix and the
	// fields below, never from Hint's text where Fix is set.
	Hint string
	// Fix names the remedy the failure calls for, for a caller that
	// words it in terms of its own (the childproof command: its flags
	// and commands); FixNone: Hint says all there is.
	Fix Fix
	// Spec is the launch the failure is about (nil: not known).
	Spec *spec.Launch
	// Path is the file or directory the failure is about: the launch's
	// log, the state dir; "": none in particular.
	Path string
	// Other is a second name the failure is about: the override whose
	// edit an env file holds, the process a selector should name, the
	// commands the launched tree runs, the argument given, the holders of
	// Port; "": none.
	Other string
	// Names are the names the failure is about (the secret overrides to
	// give again); nil: none.
	Names []string
	// Rollback is the round that brings back a launch a failed relaunch
	// left down (a relaunch.Relaunch with relaunch.Options.Round set to it); 0:
	// none.
	Rollback int
	// Missing says, for a required variable no source gave, which
	// source would (nil: not that failure).
	Missing *Missing
	// Report is the evidence gathered up to the failure (nil: none).
	Report *verify.Report
	// Err is the cause, if any: the *spec.InvalidError of a launch
	// that breaks a rule, the context's error (context.DeadlineExceeded,
	// context.Canceled) of a start its context ended, …; errors.Is and
	// errors.As see it.
	Err error
	// Tail holds the last lines the launched tree printed, for a failure
	// of a started tree; Error shows them after Msg and the cause.
	Tail []string
	// Retry marks a race (the port taken meanwhile, the worker not there
	// yet): the only failures Launch.Attempts retries.
	Retry bool
}

// Error is Msg, then the cause, then the last lines the tree printed on
// lines of their own.
func (e *Error) Error() string {
	msg := e.Msg
	switch {
	case e.Err == nil || e.Err.Error() == "":
	case msg == "":
		msg = e.Err.Error()
	default:
		msg += ": " + e.Err.Error()
	}
	if len(e.Tail) > 0 {
		msg += "; last lines it printed:\n  | " + strings.Join(e.Tail, "\n  | ")
	}
	return msg
}

// Unwrap is e's cause, Err.
func (e *Error) Unwrap() error { return e.Err }

// OutcomeKind is e's Outcome (outcome.Classified): its Report's when it
// has one.
func (e *Error) OutcomeKind() outcome.Kind {
	if e.Report != nil {
		return e.Report.Outcome
	}
	return e.Outcome
}

// ErrLocked is wrapped by the Error returned when another launch of the
// same name holds the lock.
var ErrLocked = errors.New("launch is locked")
