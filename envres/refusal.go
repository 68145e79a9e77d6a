package envres

import (
	"context"
	"errors"
	"fmt"

	"github.com/childproof/childproof/outcome"
	"github.com/childproof/childproof/schema"
)

// RefusedError is a launch refused before it started because the lint of
// its dispatch chain (LintLaunch) found at least one error: its outcome is
// outcome.Refused. Result holds the findings, for the caller to show. It is
// plain data, safe for concurrent use while no one changes it.
type RefusedError struct {
	// Command is the refusing command: run, up, relaunch.
	Command string
	// Errors is how many findings of Result are of severity error.
	Errors int
	// Result is the lint of the launch's chain.
	Result *Result
	// Editable is, for a relaunch refused without RelaunchLint.InEnvFile
	// (PlanRelaunchLint), the first Set name (by name) whose clobbering
	// env file could take its value: the relaunch could write it there.
	// Nil otherwise.
	Editable *NamedTarget
	// WorkDir is the directory a caller's words give Editable's files
	// relative to when they lie below it (RebasePath); "": as recorded.
	WorkDir string
}

func (e *RefusedError) Error() string {
	return fmt.Sprintf("%s refused: the launch's dispatch chain has %d lint error(s)", e.Command, e.Errors)
}

// OutcomeKind makes a RefusedError an outcome.Classified.
func (e *RefusedError) OutcomeKind() outcome.Kind { return outcome.Refused }

// LintError is a launch whose dispatch chain could not be linted (a script
// that cannot be read or parsed, a bad configuration): outcome.Usage;
// nothing was started. Err is LintLaunch's error. It is plain data, safe
// for concurrent use while no one changes it.
type LintError struct {
	Err error
}

// Error is the *ParseError's text as it is, else "lint: " and Err's.
func (e *LintError) Error() string {
	var pe *ParseError
	if errors.As(e.Err, &pe) {
		return e.Err.Error()
	}
	return "lint: " + e.Err.Error()
}

func (e *LintError) Unwrap() error { return e.Err }

// OutcomeKind makes a LintError an outcome.Classified.
func (e *LintError) OutcomeKind() outcome.Kind { return outcome.Usage }

// LintBeforeLaunch is the lint that comes before a launch: it lints l as
// LintLaunch does and returns its result with, when the chain has an error
// finding, a *RefusedError naming command (see Result.Refusal). A chain
// that cannot be linted is a *LintError (and no result).
func LintBeforeLaunch(ctx context.Context, command string, l *schema.Launch) (*Result, error) {
	res, err := LintLaunch(ctx, l)
	if err != nil {
		return nil, &LintError{Err: err}
	}
	return res, res.Refusal(command)
}

// Refusal is the *RefusedError of a launch by command whose chain's lint
// is res when res has an error finding, else nil.
func (res *Result) Refusal(command string) error {
	errs, _ := res.Count()
	if errs == 0 {
		return nil
	}
	return &RefusedError{Command: command, Errors: errs, Result: res}
}
