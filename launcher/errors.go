package launcher

import (
	"errors"
	"fmt"

	"github.com/childproof/childproof/verify"
)

// Exit codes of contract §2, carried by Error.Code.
const (
	CodeOK      = verify.CodeOK
	CodeLint    = 1
	CodeUsage   = 2
	CodeVerify  = verify.CodeVerify
	CodeForeign = verify.CodeForeign
	CodeExited  = verify.CodeExited
	CodeLocked  = 6
)

// Error is a launch or verification failure. Code is the CLI exit code;
// Report, when set, holds the evidence gathered up to the failure.
type Error struct {
	Code   int
	Kind   string // a problem kind of contract §5, or "locked", "usage", "state"
	Msg    string
	Hint   string
	Report *verify.Report
	Err    error // the cause, if any
	// Retry marks a race (the port taken meanwhile, the worker not there
	// yet): the only failures Launch.Attempts retries.
	Retry bool
}

func (e *Error) Error() string {
	if e.Err != nil && e.Msg == "" {
		return e.Err.Error()
	}
	if e.Err != nil {
		return e.Msg + ": " + e.Err.Error()
	}
	return e.Msg
}

func (e *Error) Unwrap() error { return e.Err }

func errorf(code int, kind, format string, args ...any) *Error {
	return &Error{Code: code, Kind: kind, Msg: fmt.Sprintf(format, args...)}
}

// ErrLocked is wrapped by the Error returned when another launch of the
// same name holds the lock.
var ErrLocked = errors.New("launch is locked")

// ExitCode returns the contract exit code for err: 0 for nil, Error.Code
// for an *Error, 2 otherwise.
func ExitCode(err error) int {
	if err == nil {
		return CodeOK
	}
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return CodeUsage
}
