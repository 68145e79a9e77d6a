package main

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/childproof/childproof/cmd/childproof/internal/console"
	"github.com/childproof/childproof/launcher"
	"github.com/childproof/childproof/launcher/group"
	"github.com/childproof/childproof/outcome"
	"github.com/childproof/childproof/schema"
	"github.com/spf13/cobra"
)

func init() { register("up", newUpCmd) }

func newUpCmd(a *app) *cobra.Command {
	var vars []string
	var detach, noLint bool
	c := &cobra.Command{
		Use: "up [SPEC] [NAME…] [--detach]",
		Long: `up starts every launch of SPEC — or the NAMEs given and, transitively, the launches
they depend on — in depends_on order. Each one is launched and verified exactly as run
does (environment, port, readiness, on the worker) before any launch that depends on it
starts. Every launch's dispatch chain is linted first: a lint error refuses the whole
up before anything starts (unless --no-lint).

In the foreground, up supervises them all: their output is shown with a "NAME | "
prefix (secret values masked), SIGHUP is forwarded to every launch, and SIGINT or
SIGTERM stops everything up started, in reverse depends_on order. A launch whose worker
exits is restarted as its restart block says (each restart verified like the first
start); otherwise a non-zero exit stops everything up started, in reverse order, and
up exits with that status. With --detach, up returns once every launch is verified.

A launch that fails to start stops everything this up started, in reverse order; the
exit status is that launch's (see run).`,
		Example: `  childproof up childproof.hcl
  childproof up --detach childproof.hcl router
  childproof down childproof.hcl`,
		Args:              cobra.ArbitraryArgs,
		ValidArgsFunction: completeSpec,
		RunE: func(c *cobra.Command, args []string) error {
			spec, names, err := specAndNames(args)
			if err != nil {
				return err
			}
			return a.up(c.Context(), spec, names, vars, detach, noLint)
		},
	}
	addVarFlag(c, &vars)
	c.Flags().BoolVarP(&detach, "detach", "d", false, "return once every launch is verified; leave them running")
	c.Flags().BoolVar(&noLint, "no-lint", false, "launch even when a dispatch chain's lint finds an error")
	return c
}

// specAndNames splits up's and down's arguments: SPEC (default
// childproof.hcl) and launch NAMEs.
func specAndNames(args []string) (string, []string, error) {
	if len(args) > 0 && isLaunchName(args[0]) {
		// NAME…: launches of childproof.hcl here (down web, as down :web).
		spec, err := specOrDefault(nil)
		return spec, args, err
	}
	spec, err := specOrDefault(args)
	if len(args) < 2 {
		return spec, nil, err
	}
	return spec, args[1:], err
}

// loadOrder loads SPEC and returns the launches named (SPEC:NAME or NAMEs,
// default all) in start order (stop, for down).
func (a *app) loadOrder(ctx context.Context, arg string, names, vars []string, stop bool) (*schema.File, []*schema.Launch, error) {
	sa := schema.ParseSpecArg(arg)
	if sa.Name != "" {
		names = append([]string{sa.Name}, names...)
		arg = sa.Path
	}
	ls, err := a.loadSpec(ctx, arg, vars)
	if err != nil {
		return nil, nil, err
	}
	order := ls.file.StartOrder
	if stop {
		order = ls.file.StopOrder
	}
	launches, err := order(names...)
	if err != nil {
		return nil, nil, exitf(exitUsage, "%v", err)
	}
	a.warn(ls, launches)
	return ls.file, launches, nil
}

func (a *app) up(ctx context.Context, arg string, names, vars []string, detach, noLint bool) error {
	a.jsonLines = true // one report per launch, one line each
	f, launches, err := a.loadOrder(ctx, arg, names, vars, false)
	if err != nil {
		return err
	}
	if !noLint {
		for _, l := range launches {
			if err := a.lintBeforeRun(ctx, "up", l); err != nil {
				return err
			}
		}
	}
	st, err := a.openState()
	if err != nil {
		return err
	}
	if detach {
		for _, l := range launches {
			a.warnDetachedRestart(l)
		}
	}
	opts := launcher.Options{FromSpec: true, State: st, Detach: detach, Tracking: launcher.Tracking{Subreaper: !detach}, ShowValues: a.showValues, Provenance: launcher.Provenance{SpecHash: f.Hash, Command: launcher.CommandUp, Vars: vars}}
	sigs, stopSigs := forwardSignals(detach)
	defer stopSigs()
	// Status lines while each launch waits; in the foreground, every
	// launch's output as "NAME | line", masked.
	lc := a.newConsole(true)
	defer lc.close()
	views := map[string]*console.View{}
	for _, l := range launches {
		views[l.Name] = lc.view(l, detach)
	}
	event := func(e group.Event) { a.launchEvent(e, views, "childproof: up: ") }
	g, err := group.Options{
		Launch: func(l *schema.Launch) launcher.Options {
			o := opts
			views[l.Name].Attach(&o)
			return o
		},
		Adopt: &group.Adopt{State: st, SpecHash: f.Hash, ShowValues: a.showValues},
		Event: event,
	}.Up(ctx, launches)
	var ge *group.Error
	var xe *group.ExitError
	var gone *group.StoppedError
	switch {
	case errors.As(err, &ge) && errors.As(ge.Err, &xe):
		// A oneshot that did not succeed: its status, and nothing that
		// depends on it started.
		// up exits with its status, as run of it does.
		fmt.Fprintf(a.stderr, "childproof: error: up: oneshot %s exited with status %d: the launches that depend on it were not started (those started before it were stopped)\n", xe.Name, xe.Code)
		fmt.Fprintf(a.stderr, "childproof: hint: 'childproof logs %s' shows its output\n", xe.Name)
		return outcome.Status(xe.Code)
	case errors.As(err, &ge):
		return a.launchErr(ge.Err)
	case errors.As(err, &gone) && (detach || len(g.Launches()) == 0):
		// Verified, then stopped by a concurrent down or stop: up does
		// not say they run.
		return &exitError{code: gone.OutcomeKind(), err: fmt.Errorf("up: %v", gone), hint: "'childproof ps' shows what runs; run up again to start them"}
	case errors.As(err, &gone):
		// In the foreground the others are supervised as usual.
		fmt.Fprintf(a.stderr, "childproof: up: warning: %v\n", gone)
	case err != nil: // not a start: the order (loadOrder checked it)
		return exitf(exitUsage, "%v", err)
	}
	started := len(g.Launches())
	if detach || started == 0 {
		fmt.Fprintf(a.stderr, "childproof: up: %s verified and running detached; stop them with: childproof down %s\n", plural(started+len(g.Adopted()), "launch"), arg)
		return nil
	}
	// In the foreground until every launch has exited: SIGHUP forwarded
	// to each, SIGINT or SIGTERM stops them all, restart policies applied.
	return a.supervisionErr(g.SuperviseSignals(ctx, sigs, nil, group.Supervision{Event: event}))
}

// warnDependencies warns, for run, when a launch depends on launches that
// are not running: run starts only the one launch.
func (a *app) warnDependencies(st *launcher.State, l *schema.Launch) {
	down := group.NotRunning(st, l.DependsOn...)
	if len(down) == 0 {
		return
	}
	verb := "is"
	if len(down) > 1 {
		verb = "are"
	}
	fmt.Fprintf(a.stderr, "childproof: warning: %s depends on %s, which %s not running; run starts %s alone (up starts its dependencies first)\n",
		l.Name, strings.Join(down, ", "), verb, l.Name)
}
