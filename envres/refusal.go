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
// outcome.Refused. Result holds the findings, for the caller to show.
type RefusedError struct {
	// Command is the refusing command: run, up, relaunch.
	Command string
	// Errors is how many findings of Result are of severity error.
	Errors int
	// Result is the lint of the launch's chain.
	Result *Result
	// Editable is, for a relaunch refused without --in-env-file
	// (PlanRelaunchLint), the first --set name (by name) whose clobbering
	// env file could take its value: Hint suggests --in-env-file. Nil
	// otherwise.
	Editable *NamedTarget
	// WorkDir is the directory Hint's files are relative to when they lie
	// below it (RebasePath); "": as recorded.
	WorkDir string
}

func (e *RefusedError) Error() string {
	return fmt.Sprintf("%s refused: the launch's dispatch chain has %d lint error(s)", e.Command, e.Errors)
}

// OutcomeKind makes a RefusedError an outcome.Classified.
func (e *RefusedError) OutcomeKind() outcome.Kind { return outcome.Refused }

// noLintHint is the hint of a launch refused by its chain's lint.
const noLintHint = "fix the script, or launch anyway with --no-lint (verification on the worker still runs)"

// Hint says what the refused command can do instead: with Editable,
// write the name into its env file with --in-env-file; else fix the
// script or launch with --no-lint.
func (e *RefusedError) Hint() string {
	t := e.Editable
	if t == nil {
		return noLintHint
	}
	n := t.Name
	return fmt.Sprintf("%s re-sources %s, which sets %s (%s): add --in-env-file to write %s into that file instead (the dispatcher keeps its re-source; --unset %s puts the file back); or fix the script, or --no-lint",
		t.SiteAt(), RebasePath(t.File, "", e.WorkDir), n, t.FileAt(e.WorkDir), n, n)
}

// LintError is a launch whose dispatch chain could not be linted (a script
// that cannot be read or parsed, a bad configuration): outcome.Usage;
// nothing was started. Err is LintLaunch's error.
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
