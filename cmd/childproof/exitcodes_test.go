package main

import (
	"errors"
	"fmt"
	"testing"

	"github.com/childproof/childproof/launcher"
	"github.com/childproof/childproof/outcome"
	"github.com/childproof/childproof/verify"
)

// TestExitCodeOfErrors: what the commands return exits through
// outcome.ExitCode, found along %w chains: cmd's exitErrors, the
// library's *launcher.Error (its report's outcome when it has one), a
// foreground worker's own status, and anything else as a usage error.
func TestExitCodeOfErrors(t *testing.T) {
	report := verify.NewReport("x")
	report.SetOutcome(outcome.Unproven)
	for _, tc := range []struct {
		err  error
		want int
	}{
		{nil, 0},
		{errors.New("unknown flag: --frob"), 2},
		{exitf(exitUsage, "bad"), 2},
		{silentExit(exitFindings), 1},
		{notRecorded(errors.New("x"), ""), 5},
		{&launcher.Error{Outcome: outcome.Usage}, 2},
		{&launcher.Error{Outcome: outcome.NotRecorded}, 5},
		{&launcher.Error{Outcome: outcome.Unproven}, 3},
		{&launcher.Error{Outcome: outcome.Foreign}, 4},
		{&launcher.Error{Outcome: outcome.Exited}, 5},
		{&launcher.Error{Outcome: outcome.Locked}, 6},
		{&launcher.Error{Outcome: outcome.Interrupted}, 130},
		{&launcher.Error{Outcome: outcome.Exited, Report: report}, 3},
		{fmt.Errorf("stop: %w", &launcher.Error{Outcome: outcome.Locked}), 6},
		{&exitError{code: exitUsage, err: &launcher.Error{Outcome: outcome.Locked}}, 2}, // the outermost says
		{outcome.Status(143), 143},
		{fmt.Errorf("group: %w", outcome.Status(7)), 7},
	} {
		if got := outcome.ExitCode(tc.err); got != tc.want {
			t.Errorf("%v: exit %d, want %d", tc.err, got, tc.want)
		}
	}
}
