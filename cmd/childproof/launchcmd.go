package main

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/childproof/childproof/internal/report"
	"github.com/childproof/childproof/launcher"
)

// This file holds what run, verify, explain, ps and stop share.

// openState opens the state dir of --state-dir (or the default).
func (a *app) openState() (*launcher.State, error) {
	st, err := launcher.OpenState(a.stateDir)
	if err != nil {
		return nil, exitf(exitUsage, "%v", err)
	}
	return st, nil
}

// writeReport prints a run/verify report: JSON (contract §5) on stdout, or text.
func (a *app) writeReport(w io.Writer, r *launcher.Report) {
	if a.format == "json" {
		report.JSON(w, r)
		return
	}
	r.WriteText(w)
}

// launchErr turns a launcher error into an exitError, printing its report first.
func (a *app) launchErr(err error) error {
	var le *launcher.Error
	if !errors.As(err, &le) {
		return exitf(exitUsage, "%v", err)
	}
	if le.Report != nil {
		a.writeReport(a.stdout, le.Report)
	}
	msg := le.Error()
	if le.Report != nil && len(le.Report.Tail) > 0 && a.format == "text" {
		// The text report already shows the last lines.
		msg, _, _ = strings.Cut(msg, "; last lines it printed:")
	}
	return &exitError{code: le.Code, err: errors.New(msg), hint: le.Hint}
}

// parseAssignments parses repeatable NAME=VALUE flags.
func parseAssignments(flag string, kvs []string) (map[string]string, error) {
	out := map[string]string{}
	for _, kv := range kvs {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			return nil, &exitError{code: exitUsage, err: fmt.Errorf("%s %q: want NAME=VALUE", flag, kv)}
		}
		out[k] = v
	}
	return out, nil
}
