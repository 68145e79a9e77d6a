package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

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
	a.pythonBufferNote(st, name)
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

// pythonBufferNote says, on stderr, why the log of a running Python
// worker that has written nothing may be empty: Python block-buffers
// stdout when it is a pipe (the log relay's), so print() shows up only
// when 8 KiB fill or the worker exits, which reads as "logs is broken".
// childproof does not set PYTHONUNBUFFERED itself: that would change the
// worker's environment behind the spec (and the delta relaunch proves);
// the spec says it instead.
func (a *app) pythonBufferNote(st *launcher.State, name string) {
	rec, err := st.Load(name)
	if err != nil || rec.Stopped != nil || !strings.HasPrefix(rec.Worker.Comm, "python") {
		return
	}
	if _, ok := rec.WorkerEnv["PYTHONUNBUFFERED"]; ok {
		return
	}
	if fi, err := os.Stat(st.LogPath(name)); err != nil || fi.Size() > 0 {
		return
	}
	fmt.Fprintf(a.stderr, "childproof: note: %s's worker is %s and has written nothing to its log yet: Python buffers stdout on a pipe until 8 KiB fill or it exits; add PYTHONUNBUFFERED = \"1\" to the launch's env (or run python -u) to see each line as it is printed\n", name, rec.Worker.Comm)
}
