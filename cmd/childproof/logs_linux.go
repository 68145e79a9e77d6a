package main

import (
	"bufio"
	"context"
	"errors"

	"github.com/childproof/childproof/launcher"
	"github.com/spf13/cobra"
)

func init() { register("logs", newLogsCmd) }

func newLogsCmd(a *app) *cobra.Command {
	var lines int
	var follow bool
	var vars []string
	c := &cobra.Command{
		Use: "logs NAME|SPEC[:NAME] [-n N] [-f]",
		Long: `logs prints the output of a recorded launch's tree (its stdout and stderr, as the
worker wrote them) from the log in the state dir: all of it, or the last N lines
with -n. With -f it then follows the log, printing lines as they are written, also
across a new launch of the same name (the old log is kept as NAME.log.1), until
interrupted or, when the launch is no longer running, once everything is printed.

Secret values the worker printed are masked as <NAME> (values under 6 characters
are too common to mask in text): childproof masks the tree's output before it
writes the log (the log file never holds a secret), so logs needs none of the
launch's secrets in the caller's environment.`,
		Example: `  childproof logs mock-llm
  childproof logs -n 50 -f mock-llm
  childproof logs examples/01-login-shell/childproof.hcl:login-shell-fixed`,
		Args:              cobra.MaximumNArgs(1),
		ValidArgsFunction: a.completeLaunchName,
		RunE: func(c *cobra.Command, args []string) error {
			name, err := a.launchNameArg(c.Context(), args, vars)
			if err != nil {
				return err
			}
			return a.logs(c.Context(), name, lines, follow)
		},
	}
	addVarFlag(c, &vars)
	c.Flags().IntVarP(&lines, "lines", "n", -1, "print only the last `N` lines (default: all)")
	// The default, -1, is "all": help says so once, not "(default -1)" too.
	c.Flags().Lookup("lines").DefValue = "0"
	c.Flags().BoolVarP(&follow, "follow", "f", false, "keep printing lines as they are written")
	return c
}

func (a *app) logs(ctx context.Context, name string, n int, follow bool) error {
	st, err := a.openState()
	if err != nil {
		return err
	}
	w := bufio.NewWriter(a.stdout)
	defer w.Flush()
	err = st.ReadLog(ctx, name, launcher.LogOptions{Last: n, Follow: follow}, func(line string) {
		w.WriteString(line)
		w.WriteByte('\n')
		if follow {
			w.Flush()
		}
	})
	var le *launcher.Error
	switch {
	case errors.As(err, &le):
		return a.recordErr(err, "'childproof ps --all' lists the recorded launches")
	case err != nil:
		return exitf(exitUsage, "%v", err)
	}
	return nil
}
