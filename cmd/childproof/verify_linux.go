package main

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/childproof/childproof/outcome"
	"github.com/childproof/childproof/verify"
	"github.com/spf13/cobra"
)

func init() { register("verify", newVerifyCmd) }

func newVerifyCmd(a *app) *cobra.Command {
	var vars, envs []string
	var pid int
	var ports []int
	var comm string
	var count int
	var wait time.Duration
	c := &cobra.Command{
		Use: "verify NAME|SPEC[:NAME] | verify --pid PID [--env NAME[=VALUE]]… [--port N]… [--comm C [--count N]] [--wait D]",
		Long: `verify runs run's proof on a tree that is already running, without starting or
signalling anything.

verify SPEC checks the launch recorded under the spec's launch name (verify NAME: the
recorded launch NAME, with the spec file its record names): the recorded worker
must still be the same process (pid, start time, uid, exe, pidfs inode), and its own
/proc/PID/environ, fds and the kernel's socket table must satisfy the spec.

verify --pid PID checks the process PID or, when PID is a wrapper (a shell, a
dispatcher), the worker below it: the process named by --comm, else the owner of
a --port, else the deepest descendant. --env NAME requires NAME non-empty; --env
NAME=VALUE requires that value (compared as keyed digests, never printed).
--port N (repeatable) requires the worker to hold a listener on each port N,
reported port by port.
--count N, with --comm, verifies a multi-process job (worker { count = N }): its
workers are the N deepest processes below PID that exec'd the program --comm names
(a fork-only child is a helper), each verified on its own environment; a port may be
held by any of them, and fewer than N workers is exit 5.
--wait D repeats the check every 100 ms until it passes or D has passed, for a
check that runs right after the start (systemd ExecStartPost=); it stops early
when PID exits.

Exit status: 0 verified, 3 verification failed, 4 the port is held by a process that
is not the worker's tree, 5 the worker is gone or there is none.`,
		Example: `  childproof verify examples/01-login-shell/childproof.hcl:login-shell-fixed
  childproof verify --pid 2800 --env MOCK_LLM_KEY --port 18081 --comm mock-llm
  childproof verify --pid 2800 --port 18081 --port 9090
  childproof verify --format json --pid 2800 --env HF_HUB_ENABLE_HF_TRANSFER=0`,
		Args:              cobra.MaximumNArgs(1),
		ValidArgsFunction: a.completeLaunchName,
		RunE: func(c *cobra.Command, args []string) error {
			if len(args) == 1 && pid != 0 {
				return exitf(exitUsage, "verify takes either SPEC or --pid PID")
			}
			if pid != 0 {
				return a.verifyPid(c.Context(), pid, envs, ports, comm, count, wait)
			}
			if len(envs) > 0 || len(ports) > 0 || comm != "" || count != 0 || wait != 0 {
				return exitf(exitUsage, "--env, --port, --comm, --count and --wait go with --pid; a SPEC says them itself")
			}
			spec, err := specOrDefault(args)
			if err != nil {
				return err
			}
			return a.verifySpec(c.Context(), spec, vars)
		},
	}
	addVarFlag(c, &vars)
	c.Flags().IntVar(&pid, "pid", 0, "verify the running process `PID` (or the worker below it)")
	c.Flags().StringArrayVar(&envs, "env", nil, "require `NAME` non-empty, or NAME=VALUE at that value (repeatable)")
	c.Flags().IntSliceVar(&ports, "port", nil, "require the worker to own a listener on port `N` (repeatable)")
	c.Flags().StringVar(&comm, "comm", "", "the worker's exact /proc/PID/comm below PID")
	c.Flags().IntVar(&count, "count", 0, "with --comm: verify the job's `N` workers below PID, each on its own environment")
	c.Flags().DurationVar(&wait, "wait", 0, "with --pid: retry every 100ms for up to `D` (like 10s) until verified")
	return c
}

func (a *app) verifyPid(ctx context.Context, pid int, envs []string, ports []int, comm string, count int, wait time.Duration) error {
	if wait < 0 {
		return exitf(exitUsage, "--wait %s: must not be negative", wait)
	}
	if count < 0 || count > 1 && comm == "" {
		return exitf(exitUsage, "--count %d: a job's workers are N >= 1 processes named by --comm", count)
	}
	st, err := a.openState()
	if err != nil {
		return err
	}
	as, err := envSyntax.parse(envs)
	if err != nil {
		return err
	}
	x := verify.Expect{Values: map[string]string{}}
	for _, e := range as {
		if e.HasValue {
			x.Values[e.Name] = e.Value
		} else {
			x.Require = append(x.Require, e.Name)
		}
	}
	for _, port := range ports {
		if port < 1 || port > 65535 {
			return exitf(exitUsage, "--port %d: outside 1-65535", port)
		}
	}
	chk := verify.CheckForPid(pid, x, ports, comm)
	chk.Count = count
	v := &verify.Verifier{State: st, ShowValues: a.showValues}
	r, err := v.Await(ctx, chk, verify.AwaitOptions{
		Until: time.Now().Add(wait),
		Mask:  func(r *verify.Report) { st.MaskPidReport(pid, r) },
		Waiting: func(r *verify.Report) {
			// Once, so that a log (systemd's ExecStartPost=) shows why it
			// waits; the problem names no value.
			why := "no worker yet"
			reportForCLI(r)
			if len(r.Problems) > 0 {
				why = r.Problems[0].Message
			}
			fmt.Fprintf(a.stderr, "childproof: verify: not verified yet (%s); retrying every %s for up to %s\n", why, verify.AwaitInterval, wait)
		},
	})
	// A worker that could not bind a port someone else holds exits at
	// once: name the holder (exit 4), as run does, rather than the pid
	// that is gone (a systemd ExecStartPost= gets there).
	var fe *verify.ForeignPortError
	switch {
	case errors.As(err, &fe):
		if fe.Report != nil {
			a.writeReport(a.stdout, fe.Report)
		}
		return &exitError{code: outcome.Of(err), err: fe,
			hint: "childproof never signals a process it did not start; stop that process yourself or pick another port"}
	case err != nil: // a *verify.NoProcessError
		return &exitError{code: outcome.Of(err), err: err}
	}
	return a.finishVerify(r)
}

func (a *app) finishVerify(r *verify.Report) error {
	a.writeReport(a.stdout, r)
	if r.Verified {
		return nil
	}
	return exitf(r.Outcome, "%s", r.Failure())
}

func (a *app) verifySpec(ctx context.Context, arg string, vars []string) error {
	st, err := a.openState()
	if err != nil {
		return err
	}
	arg, _, err = a.recordedSpecArg(st, arg)
	if err != nil {
		return err
	}
	_, l, err := a.loadLaunch(ctx, arg, vars)
	if err != nil {
		return err
	}
	r, err := st.VerifyRunning(ctx, &verify.Verifier{State: st, ShowValues: a.showValues}, l)
	if err != nil {
		return a.recordErr(err, "start it with 'childproof run --detach "+arg+"'")
	}
	return a.finishVerify(r)
}
