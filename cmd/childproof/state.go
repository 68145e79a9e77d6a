package main

import (
	"errors"
	"fmt"
	"github.com/childproof/childproof/schema"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/childproof/childproof/launcher"
	"github.com/childproof/childproof/launcher/statedir"
)

// openState opens the state dir of --state-dir (or the default,
// statedir.DefaultDir).
func (a *app) openState() (*launcher.State, error) {
	openingState()
	st, err := launcher.OpenState(a.stateDir())
	if err != nil {
		var le *launcher.Error
		if errors.As(err, &le) {
			return nil, &exitError{code: le.OutcomeKind(), err: errors.New(le.Error()), hint: cliHint(le)}
		}
		var se *statedir.StepDirError
		if errors.As(err, &se) {
			return nil, exitf(exitUsage, "state dir of the SLURM step: %v (set --state-dir or CHILDPROOF_STATE_DIR)", se.Err)
		}
		return nil, exitf(exitUsage, "%v", err)
	}
	st.ReadSpec = schema.ReadLaunch
	return st, nil
}

// stateDir is the state dir --state-dir names, the last one given ("":
// the default).
func (a *app) stateDir() string {
	if len(a.stateDirs) == 0 {
		return ""
	}
	return a.stateDirs[len(a.stateDirs)-1]
}

// checkStateDirs refuses several --state-dir values where one is used:
// only ps takes several (a census of each).
func (a *app) checkStateDirs(c *cobra.Command) error {
	if len(a.stateDirs) > 1 && c.Name() != "ps" {
		return exitf(exitUsage, "--state-dir is given %d times: only ps takes several", len(a.stateDirs))
	}
	return nil
}

// psStateDirs expands ps's --state-dir values: each is a state dir or a
// glob of them (filepath.Match syntax), in order, each once. A glob that
// matches nothing and a dir that does not exist are usage errors: a
// census of several dirs creates none.
func (a *app) psStateDirs() ([]string, error) {
	var out []string
	for _, v := range a.stateDirs {
		ms := []string{v}
		if strings.ContainsAny(v, "*?[") {
			var err error
			if ms, err = filepath.Glob(v); err != nil {
				return nil, exitf(exitUsage, "--state-dir %q: %v", v, err)
			}
			if len(ms) == 0 {
				return nil, exitf(exitUsage, "--state-dir %q matches no directory", v)
			}
		}
		for _, m := range ms {
			if fi, err := os.Stat(m); err != nil || !fi.IsDir() {
				return nil, exitf(exitUsage, "--state-dir %s: not a state dir (%v)", m, errOrNotDir(err))
			}
			if !slices.Contains(out, m) {
				out = append(out, m)
			}
		}
	}
	return out, nil
}

func errOrNotDir(err error) error {
	if err != nil {
		return err
	}
	return fmt.Errorf("not a directory")
}
