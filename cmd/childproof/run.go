//go:build linux

package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/childproof/childproof/envres"
	"github.com/childproof/childproof/launcher"
	"github.com/childproof/childproof/launcher/present"
	"github.com/childproof/childproof/schema"
	"github.com/spf13/cobra"
)

func init() { register("run", newRunCmd) }

func newRunCmd(a *app) *cobra.Command {
	var vars []string
	var overrides overrideFlags
	var detach, noLint bool
	c := &cobra.Command{
		Use: "run [SPEC[:NAME]]",
		Long: `run lints the launch's dispatch chain (refusing on an error unless --no-lint),
resolves its environment (inherit, then env_file, then env and --set; BASH_ENV and ENV
are always removed), checks that nothing holds its ports, starts the command directly
(a dispatch script under bash --noprofile --norc) in a process group of its own, finds
the worker, and proves on the worker's own /proc records that the required variables
are there, that it owns the declared port on the declared address, and that no login
or interactive shell sits between the launch and the worker. The tree's output goes to
a log in the state dir.

With --detach, run returns once the worker is verified. Otherwise it supervises:
SIGINT, SIGTERM and SIGHUP are forwarded to the worker's process group, and run exits
with the worker's status (128+signal when it was killed). If childproof itself dies,
the kernel kills the launched process.

Exit status: 0 verified (foreground: the worker's own status), 1 lint refused, 2 usage
or invalid spec, 3 verification failed, 4 the port is held by a process childproof did
not start, 5 the worker exited, or was not ready within ready.timeout, 6 another launch of the same
name holds the lock, 130 interrupted (Ctrl-C or SIGTERM) before the worker was ready.
A failed launch leaves no process and no listener behind.`,
		Example: `  childproof run --detach examples/01-login-shell/childproof.hcl:login-shell-fixed
  childproof run --format json --detach childproof.hcl:api
  childproof run --set HF_HUB_ENABLE_HF_TRANSFER=0 childproof.hcl:job`,
		Args:              cobra.MaximumNArgs(1),
		ValidArgsFunction: completeSpec,
		RunE: func(c *cobra.Command, args []string) error {
			spec, err := specOrDefault(args)
			if err != nil {
				return err
			}
			return a.run(c.Context(), spec, vars, overrides, detach, noLint)
		},
	}
	addVarFlag(c, &vars)
	overrides.add(c, "an extra override, `NAME=VALUE` (repeatable); wins over the spec's env",
		"a secret override, `NAME` (repeatable): the value comes from the caller's environment and is never stored")
	c.Flags().BoolVarP(&detach, "detach", "d", false, "return once the worker is verified; leave it running")
	c.Flags().BoolVar(&noLint, "no-lint", false, "launch even when the dispatch chain's lint finds an error")
	return c
}

func (a *app) run(ctx context.Context, arg string, vars []string, overrides overrideFlags, detach, noLint bool) error {
	in, err := a.parseOverrides(overrides)
	if err != nil {
		return err
	}
	f, l, err := a.loadLaunch(ctx, arg, vars)
	if err != nil {
		return err
	}
	a.warnOverrides(l, in)
	if l.Oneshot {
		// A oneshot runs to completion: run waits for it and exits with
		// its status, --detach or not.
		detach = false
	}
	if !noLint {
		if err := a.lintBeforeRun(ctx, "run", l.WithEnv(in.Set)); err != nil {
			return err
		}
	}
	st, err := a.openState()
	if err != nil {
		return err
	}
	a.warnDependencies(st, l)
	if detach {
		a.warnDetachedRestart(l)
	}
	opts := launcher.Options{FromSpec: true, State: st, Detach: detach, Tracking: launcher.Tracking{Subreaper: !detach}, EnvInput: in, ShowValues: a.showValues, Provenance: launcher.Provenance{Command: launcher.CommandRun, Vars: vars}}
	if f != nil {
		opts.SpecHash = f.Hash
	}
	// Catch the signals before the launch: one that arrives between the
	// verification and the supervision loop is forwarded, not lost.
	sigs, stopSigs := forwardSignals(detach)
	defer stopSigs()
	lc := a.newConsole(false)
	defer lc.close()
	view := lc.view(l, detach)
	view.Attach(&opts)
	opts.Notify, opts.Replaced = a.notify, a.replaced
	la, err := launcher.Start(ctx, l, opts)
	view.Started()
	if err != nil {
		return a.launchErr(err)
	}
	notesForCLI(la.Report)
	if a.format == "json" {
		present.JSON(a.stdout, present.NewRunOutput(la))
	} else {
		present.NewRunOutput(la).WriteText(a.painted(a.stdout, reportPaint)) // as a failed run's report and relaunch's are
	}
	if !detach && l.Restart.EffectivePolicy() != schema.RestartNever {
		return a.superviseRestarts(ctx, la, opts, view, sigs)
	}
	return a.supervise(la, l.Name, detach, sigs)
}

// lintBeforeRun refuses (exit 1) when the launch's chain has an error
// finding (envres.LintBeforeLaunch); cmd names the refusing command (run,
// up). It shows the findings and the refusal's hint.
func (a *app) lintBeforeRun(ctx context.Context, cmd string, l *schema.Launch) error {
	_, err := envres.LintBeforeLaunch(ctx, cmd, l)
	return a.lintRefusal(err)
}

// lintRefusal renders an error of envres.LintBeforeLaunch (nil stays
// nil): a refusal's findings go to stderr in text and it exits with its
// hint; a chain that could not be linted exits as it is.
func (a *app) lintRefusal(err error) error {
	var re *envres.RefusedError
	var le *envres.LintError
	switch {
	case errors.As(err, &re):
		a.writeLint(a.stderr, "text", re.Result)
		return &exitError{code: re.OutcomeKind(), err: re, hint: refusedHint(re)}
	case errors.As(err, &le):
		return &exitError{code: le.OutcomeKind(), err: le}
	}
	return err
}

// warnDetachedRestart says, before a detached launch starts, that its
// restart block does not apply: nothing supervises a detached launch
// (docs/cli.md, "restart and --detach"). Never silent.
func (a *app) warnDetachedRestart(l *schema.Launch) {
	if p := l.Restart.EffectivePolicy(); p != schema.RestartNever {
		fmt.Fprintf(a.stderr, "childproof: warning: %s: restart { policy = %q } does not apply with --detach: nothing restarts a detached launch; run it in the foreground (run, up) to have it restarted, or 'childproof export --to systemd' for a unit with Restart=\n", l.Name, p)
	}
}
