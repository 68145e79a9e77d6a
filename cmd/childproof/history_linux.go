//go:build linux

package main

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/childproof/childproof/launcher/present"
	"github.com/childproof/childproof/launcher/relaunch"
	"github.com/childproof/childproof/proc"
	"github.com/childproof/childproof/schema"
	"github.com/spf13/cobra"
)

func init() { register("history", newHistoryCmd) }

func newHistoryCmd(a *app) *cobra.Command {
	var diff bool
	var vars []string
	c := &cobra.Command{
		Use: "history NAME|SPEC[:NAME] [--diff A B]",
		Long: `history lists the crash-fix rounds of a launch: every run and relaunch of the name is
a round, numbered from 1. For each: when it started, its delta (+NAME for a --set,
-NAME for a dropped override; values only with --show-values, and never a secret
one), its outcome (verified, failed with the problem kinds, refused because of an
unexpected delta), how its worker ended (exit status or signal, stopped by childproof,
or gone with the status unknown) and its uptime.

A foreground run or relaunch sees its worker end and records the status. A detached
launch's end is seen by nobody: the first command that finds its worker gone
(history, ps, run, relaunch, stop) records "gone" with the uptime as an upper bound.

With --diff A B it names the variables whose digests differ between the workers of
rounds A and B.

The history lives in the state dir (history/NAME/, mode 0600), one file per round,
each written atomically, with the round's log kept beside it (the last 20 rounds).`,
		Example: `  childproof history job
  childproof history job --format json
  childproof history job --diff 2 4`,
		Args: func(c *cobra.Command, args []string) error {
			if diff && len(args) != 3 {
				return fmt.Errorf("history NAME --diff A B: want a name and two round numbers, got %d argument(s)", len(args))
			}
			if !diff && len(args) != 1 {
				return fmt.Errorf("history takes one NAME (or --diff A B), got %d arguments", len(args))
			}
			return nil
		},
		RunE: func(c *cobra.Command, args []string) error {
			name := schema.ExpandSpecArg(args[0]) // :NAME is childproof.hcl:NAME
			if schema.IsSpecArg(name) {
				_, l, err := a.loadLaunch(c.Context(), name, vars)
				if err != nil {
					return err
				}
				name = l.Name
			}
			if diff {
				ra, err1 := strconv.Atoi(args[1])
				rb, err2 := strconv.Atoi(args[2])
				if err1 != nil || err2 != nil || ra < 1 || rb < 1 {
					return exitf(exitUsage, "--diff %s %s: want two round numbers", args[1], args[2])
				}
				return a.historyDiff(name, ra, rb)
			}
			return a.history(c.Context(), name)
		},
	}
	addVarFlag(c, &vars)
	c.Flags().BoolVar(&diff, "diff", false, "name the variables whose digests differ between the workers of rounds A and B")
	return c
}

func (a *app) history(_ context.Context, name string) error {
	st, err := a.openState()
	if err != nil {
		return err
	}
	h, err := st.History(proc.Default, name)
	if err != nil {
		fmt.Fprintf(a.stderr, "childproof: warning: %v\n", err)
	}
	if len(h.Rounds) == 0 {
		return &exitError{code: exitNotRecorded, err: fmt.Errorf("no round of %q is recorded in %s", name, st.Dir),
			hint: "every 'childproof run' and 'relaunch' of a launch is a round; 'childproof ps --all' lists the recorded launches"}
	}
	if a.format == "json" {
		return present.JSON(a.stdout, present.NewHistoryOutput(h, name, a.showValues))
	}
	present.WriteHistory(a.stdout, h, a.textOptions(), time.Now())
	return nil
}

// textOptions are the CLI's options of the library's text forms: paths
// relative to the working directory (as displayPath), values with
// --show-values.
func (a *app) textOptions() present.TextOptions {
	return present.TextOptions{Dir: workDir(), ShowValues: a.showValues}
}

// historyDiff names the variables whose digests differ between the
// workers of rounds ra and rb.
func (a *app) historyDiff(name string, ra, rb int) error {
	st, err := a.openState()
	if err != nil {
		return err
	}
	d, err := present.CompareRounds(st, name, ra, rb, a.textOptions())
	if err != nil {
		return a.launchErr(err)
	}
	if a.format == "json" {
		return present.JSON(a.stdout, d)
	}
	d.WriteText(a.stdout)
	return nil
}

// parseSecretSets reads each --set-secret NAME's value from the caller's
// environment into set (secretSets), and returns the names.
func (a *app) parseSecretSets(names []string, set map[string]string) ([]string, error) {
	return secretSets(names, set, nil)
}

// warnSecretSets warns about a --set of a name the spec makes secret
// (relaunch.PlainSecretSets): its value is not stored, and it was on the
// command line.
func (a *app) warnSecretSets(l *schema.Launch, set map[string]string, secret []string) {
	for _, n := range relaunch.PlainSecretSets(l, set, secret) {
		fmt.Fprintf(a.stderr, "childproof: warning: --set %s: the spec makes %s secret: its value is not stored in the round history, and a command line is visible to every user (ps); prefer --set-secret %s\n", n, n, n)
	}
}
