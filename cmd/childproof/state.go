package main

import (
	"errors"

	"github.com/childproof/childproof/launcher"
)

// openState opens the state dir of --state-dir (or the default,
// launcher.DefaultStateDir).
func (a *app) openState() (*launcher.State, error) {
	st, err := launcher.OpenState(a.stateDir)
	if err != nil {
		var le *launcher.Error
		if errors.As(err, &le) {
			return nil, &exitError{code: le.OutcomeKind(), err: errors.New(le.Error()), hint: le.Hint}
		}
		return nil, exitf(exitUsage, "%v", err)
	}
	return st, nil
}
