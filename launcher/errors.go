package launcher

import (
	"errors"
	"fmt"
	"strings"

	"github.com/childproof/childproof/verify"
)

// Outcome classifies a failure of Start, Relaunch or StopRecord. The CLI
// exits with one status per outcome; a library caller switches on it.
type Outcome int

const (
	// Invalid: the launch, an argument, an env file or the state dir
	// cannot be used; nothing was started.
	Invalid Outcome = iota + 1
	// Unproven: the worker's own records do not show what the launch
	// declared (or a record cannot be trusted or identified).
	Unproven
	// Foreign: a declared port is held by a process childproof did not start.
	Foreign
	// Exited: the worker exited, never appeared or was not ready in time.
	Exited
	// Locked: another launch of the same name holds the lock.
	Locked
)

var outcomeNames = map[Outcome]string{Invalid: "invalid", Unproven: "unproven", Foreign: "foreign", Exited: "exited", Locked: "locked"}

func (o Outcome) String() string { return outcomeNames[o] }

// outcomeOf is the outcome a report's exit code stands for.
func outcomeOf(r *verify.Report) Outcome {
	switch r.ExitCode {
	case verify.CodeUsage:
		return Invalid
	case verify.CodeForeign:
		return Foreign
	case verify.CodeExited:
		return Exited
	}
	return Unproven
}

// Error is a launch or verification failure: its Outcome, and the Report
// with the evidence gathered up to the failure when there is one.
type Error struct {
	Outcome Outcome
	// Kind is a report's problem kind (verify.KindExited, …) or one of
	// the kinds below, for a failure no report describes.
	Kind   verify.Kind
	Msg    string
	Hint   string
	Report *verify.Report
	Err    error // the cause, if any
	// Tail holds the last lines the launched tree printed, for a failure
	// of a started tree; Error shows them after Msg.
	Tail []string
	// Retry marks a race (the port taken meanwhile, the worker not there
	// yet): the only failures Launch.Attempts retries.
	Retry bool
}

func (e *Error) Error() string {
	msg := e.Msg
	if len(e.Tail) > 0 {
		msg += "; last lines it printed:\n  | " + strings.Join(e.Tail, "\n  | ")
	}
	if e.Err != nil && msg == "" {
		return e.Err.Error()
	}
	if e.Err != nil {
		return msg + ": " + e.Err.Error()
	}
	return msg
}

func (e *Error) Unwrap() error { return e.Err }

// Kinds of an Error that is not a report's problem: the launch was not
// tried, or could not be recorded or identified.
const (
	// KindUsage: the launch, an argument or an env file cannot be used.
	KindUsage verify.Kind = "usage"
	// KindState: the state dir, a record or a log cannot be used.
	KindState verify.Kind = "state"
	// KindKey: the state dir's digest key is malformed.
	KindKey verify.Kind = "key"
	// KindLocked: another launch of the same name holds the lock.
	KindLocked verify.Kind = "locked"
	// KindNotRecorded: no launch of the name is recorded in the state dir.
	KindNotRecorded verify.Kind = "not-recorded"
)

func errorf(o Outcome, kind verify.Kind, format string, args ...any) *Error {
	return &Error{Outcome: o, Kind: kind, Msg: fmt.Sprintf(format, args...)}
}

// ErrLocked is wrapped by the Error returned when another launch of the
// same name holds the lock.
var ErrLocked = errors.New("launch is locked")
