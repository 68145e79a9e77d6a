package main

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/childproof/childproof/launcher"
	"github.com/childproof/childproof/launcher/present"
	"github.com/childproof/childproof/proc"
	"github.com/childproof/childproof/verify"
	"github.com/spf13/cobra"
)

func init() { register("stop", newStopCmd) }

func newStopCmd(a *app) *cobra.Command {
	var timeout time.Duration
	var vars []string
	c := &cobra.Command{
		Use: "stop NAME|SPEC[:NAME] [--timeout 10s]",
		Long: `stop sends the launch's stop signal (the spec's stop { signal }, recorded when it was
launched; SIGTERM by default) to the recorded worker's process group (through the root's
pidfd), to the worker and to every member of the launch's cgroup (each through its own
pidfd), waits up to --timeout (default: the recorded stop { timeout }, else 10s) for the
worker to exit, then sends SIGKILL.

It signals nothing unless the recorded worker's fingerprint (pid, start time, uid, exe,
pidfs inode) still matches: a pid now used by another process is reported and left
alone. A worker that is already gone is reported too. Both exit 0. What the launch's
tree left (in its cgroup, or carrying its CHILDPROOF_LAUNCH marker) is stopped too.

stop holds the launch's lock: a run, relaunch or stop of the name in progress is
waited for up to --timeout, then stop exits 6 having signalled nothing. When the
record cannot be marked stopped (a full disk, a read-only state dir) the processes
are stopped all the same and stop exits 2, saying so.`,
		Example: `  childproof stop mock-llm
  childproof stop --timeout 30s examples/01-login-shell/childproof.hcl:login-shell-fixed`,
		Args:              cobra.MaximumNArgs(1),
		ValidArgsFunction: a.completeLaunchName,
		RunE: func(c *cobra.Command, args []string) error {
			name, err := a.launchNameArg(c.Context(), args, vars)
			if err != nil {
				return err
			}
			return a.stop(c.Context(), name, timeout)
		},
	}
	addVarFlag(c, &vars)
	c.Flags().DurationVar(&timeout, "timeout", 0, "how long to wait after the stop signal before SIGKILL (default: the launch's stop.timeout, else 10s)")
	return c
}

func (a *app) stop(ctx context.Context, name string, timeout time.Duration) error {
	st, err := a.openState()
	if err != nil {
		return err
	}
	// Under the launch's lock (waiting up to --timeout for a run in
	// progress, then exit 6): the record stopped and marked is the one
	// the lock protects.
	_, res, err := launcher.StopLaunch(ctx, proc.Default, st, name, timeout, timeout, nil)
	if errors.Is(err, launcher.ErrUntrusted) {
		return a.launchErrWith(err, func(r *verify.Report) {
			if a.format == "json" {
				a.writeReport(a.stdout, r)
			}
		})
	}
	if err != nil {
		return a.recordErr(err, "'childproof ps --all' lists the recorded launches")
	}
	// A record not marked stopped: the processes are stopped, the record
	// still says running (exit 2).
	fail := st.RecordFailure(res)
	if a.format == "json" {
		if err := present.JSON(a.stdout, res); err != nil {
			return err
		}
		if fail != nil {
			return silentExit(exitUsage)
		}
		return nil
	}
	fmt.Fprintln(a.painted(a.stdout, reportPaint), res.Text())
	if fail != nil {
		return a.launchErr(fail)
	}
	return nil
}
