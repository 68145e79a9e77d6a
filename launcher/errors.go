package launcher

import (
	"fmt"

	"github.com/childproof/childproof/launcher/failure"
	"github.com/childproof/childproof/outcome"
)

// Error is a launch or verification failure (failure.Error); its Outcome
// is its one kind, and Report holds the evidence.
type Error = failure.Error

// ErrLocked is wrapped by the Error returned when another launch of the
// same name holds the lock.
var ErrLocked = failure.ErrLocked

func errorf(o outcome.Kind, format string, args ...any) *Error {
	return &Error{Outcome: o, Msg: fmt.Sprintf(format, args...)}
}

// quietCause is a cause that Error's message leaves out (its text adds
// nothing the message does not say) but errors.Is and errors.As find.
type quietCause struct{ err error }

func (q quietCause) Error() string { return "" }
func (q quietCause) Unwrap() error { return q.err }
