package relaunch

import (
	"fmt"
	"strings"

	"github.com/childproof/childproof/launcher"
	"github.com/childproof/childproof/outcome"
	"github.com/childproof/childproof/spec"
)

// launchArgv is the argv a launch of l execs (as Launch.argv builds it),
// before the program is looked up.
func launchArgv(l *spec.Launch) []string {
	if len(l.Dispatch) > 0 {
		return append([]string{"bash", "--noprofile", "--norc", l.Dispatch[0]}, l.Dispatch[1:]...)
	}
	return l.Command
}

// argvDelta describes how argv (masked as a record keeps it) differs
// from the recorded launch's, "" when it does not: each differing
// element with both values ("argv[3] "--die-on-term" → """).
func argvDelta(recorded, argv []string) string {
	var diffs []string
	for i := range max(len(recorded), len(argv)) {
		var was, now string
		hadWas, hasNow := i < len(recorded), i < len(argv)
		if hadWas {
			was = fmt.Sprintf("%q", recorded[i])
		} else {
			was = "(none)"
		}
		if hasNow {
			now = fmt.Sprintf("%q", argv[i])
		} else {
			now = "(none)"
		}
		if hadWas && hasNow && recorded[i] == argv[i] {
			continue
		}
		diffs = append(diffs, fmt.Sprintf("argv[%d] %s → %s", i, was, now))
	}
	return strings.Join(diffs, ", ")
}

// checkArgv refuses a relaunch whose argv differs from the recorded
// launch's unless the caller changed a variable for it
// (Provenance.ArgvMayChange), before anything is stopped; the difference
// it allows is said by the delta (Delta.Argv).
func (r *relaunchRound) checkArgv() error {
	if len(r.prev.Argv) == 0 {
		return nil // a record without one: nothing to compare
	}
	secrets := launcher.LaunchSecrets(r.l, r.opts.Options)
	d := argvDelta(r.prev.Argv, secrets.Argv(launchArgv(r.l)))
	if d == "" {
		return nil
	}
	if r.opts.ArgvMayChange {
		return nil // compare says it in the delta
	}
	return &launcher.Error{Outcome: outcome.Usage,
		Msg:  fmt.Sprintf("%s: the relaunch would start another command line than the recorded launch's: %s; nothing was stopped", r.l.Name, d),
		Name: r.l.Name, Fix: launcher.FixArgvChange,
		Hint: "set Provenance.ArgvMayChange when the command line is to change"}
}
