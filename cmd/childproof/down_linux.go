package main

import (
	"context"
	"fmt"
	"time"

	"github.com/childproof/childproof/launcher/group"
	"github.com/childproof/childproof/launcher/present"
	"github.com/childproof/childproof/proc"
	"github.com/spf13/cobra"
)

func init() { register("down", newDownCmd) }

func newDownCmd(a *app) *cobra.Command {
	var vars []string
	var timeout time.Duration
	c := &cobra.Command{
		Use: "down [SPEC] [NAME…] [--timeout 10s]",
		Long: `down stops every recorded launch of SPEC — or the NAMEs given and, transitively, the
launches that depend on them — in reverse depends_on order: a launch is stopped before
the launches it depends on. Each is stopped as stop does (its stop signal, SIGTERM by
default, to its process group, wait up to --timeout or its stop.timeout, then SIGKILL), and only if its recorded worker's fingerprint still
matches; a launch with no record, one recorded from another spec file, or one already
gone is reported and skipped.

Exit status: 0 when every launch is stopped or was not running, 2 for a usage error or
an invalid spec, or the exit status of the first stop that failed.`,
		Example: `  childproof down childproof.hcl
  childproof down childproof.hcl model-server`,
		Args:              cobra.ArbitraryArgs,
		ValidArgsFunction: completeSpec,
		RunE: func(c *cobra.Command, args []string) error {
			spec, names, err := specAndNames(args)
			if err != nil {
				return err
			}
			return a.down(c.Context(), spec, names, vars, timeout)
		},
	}
	addVarFlag(c, &vars)
	c.Flags().DurationVar(&timeout, "timeout", 0, "how long to wait after the stop signal before SIGKILL, per launch (default: each launch's stop.timeout, else 10s)")
	return c
}

func (a *app) down(ctx context.Context, arg string, names, vars []string, timeout time.Duration) error {
	_, launches, err := a.loadOrder(ctx, arg, names, vars, true)
	if err != nil {
		return err
	}
	st, err := a.openState()
	if err != nil {
		return err
	}
	results := []group.Stopped{}
	var first error
	for _, s := range group.DownRecorded(ctx, proc.Default, st, launches, timeout) {
		if s.Skip == group.Ran && s.Err != nil {
			if first == nil {
				first = a.launchErr(s.Err)
			}
			continue
		}
		if s.Failed() && first == nil {
			first = silentExit(exitUsage)
		}
		results = append(results, s)
	}
	if a.format == "json" {
		present.JSON(a.stdout, map[string]any{"launches": results})
	} else {
		for _, s := range results {
			fmt.Fprintln(a.stdout, s.Message())
		}
	}
	return first
}
