package main

import (
	"context"
	"fmt"

	"github.com/childproof/childproof/launcher/present"
	"github.com/childproof/childproof/schema"
	"github.com/childproof/childproof/verify"
	"github.com/spf13/cobra"
)

func init() { register("explain", newExplainCmd) }

func newExplainCmd(a *app) *cobra.Command {
	var vars []string
	var pid int
	c := &cobra.Command{
		Use: "explain --pid PID NAME[=VALUE]… | explain NAME|SPEC[:NAME] VAR… | explain VAR…",
		Long: `explain shows, for each NAME, its state in the environ of every process from the
launch root down to the worker, the root's ancestors above it and any other
descendant: unset, empty, or set (as a keyed digest; the value only with
--show-values), and marks where it changes from the parent.

With SPEC (or a recorded launch NAME; with neither, childproof.hcl here) it explains
the recorded launch of the spec's launch name and shows the value
the launch intends (the spec's env and run --set, as a digest). With --pid it starts at
PID and takes the deepest descendant as the worker; NAME=VALUE gives the intended value
there (compared as a digest, never printed).

For a name with an intended value, explain answers the crash-fix question directly:
which process, from the launch root down to the worker, first differs from it.

An environ is the block a process was exec'd with, frozen at that exec: a shell's later
export or unset never shows there. A wrapper's environ is no evidence for the worker.`,
		Example: `  childproof explain --pid 2800 MOCK_LLM_KEY
  childproof explain --pid 2800 HF_HUB_ENABLE_HF_TRANSFER=0
  childproof explain examples/03-dispatch-resource-env/childproof.hcl:resource-env-fixed HF_HUB_ENABLE_HF_TRANSFER`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			return a.explain(c.Context(), pid, vars, args)
		},
	}
	addVarFlag(c, &vars)
	c.Flags().IntVar(&pid, "pid", 0, "start at process `PID` instead of a recorded launch")
	return c
}

func (a *app) explain(ctx context.Context, pid int, vars, args []string) error {
	st, err := a.openState()
	if err != nil {
		return err
	}
	v := &verify.Verifier{State: st, ShowValues: a.showValues}
	var ex *verify.Explanation
	title := fmt.Sprintf("pid %d", pid)
	if pid == 0 {
		if len(args) > 0 {
			args[0] = schema.ExpandSpecArg(args[0]) // :NAME is childproof.hcl:NAME
		}
		if len(args) == 1 && !schema.IsSpecArg(args[0]) && !recorded(st, args[0]) {
			// explain VAR: VAR of childproof.hcl's launch.
			spec, err := specOrDefault(nil)
			if err != nil {
				return err
			}
			args = append([]string{spec}, args...)
		}
		if len(args) < 2 {
			return exitf(exitUsage, "explain %s: name at least one variable to explain", args[0])
		}
		spec, _, err := a.recordedSpecArg(st, args[0])
		if err != nil {
			return err
		}
		_, l, err := a.loadLaunch(ctx, spec, vars)
		if err != nil {
			return err
		}
		if ex, err = st.ExplainRecorded(ctx, v, l, args[1:]); err != nil {
			return a.recordErr(err, "'childproof ps --all' lists the recorded launches")
		}
		title = l.Name
	} else if _, err := verify.TakeFingerprint(v.Proc, pid); err != nil {
		return exitf(exitExited, "no such process: %v", err)
	} else {
		// NAME=VALUE asks where the chain first differs from VALUE
		// (compared as a digest; the value is never printed).
		as, err := explainSyntax.parse(args)
		if err != nil {
			return err
		}
		names := make([]string, len(as))
		values := map[string]string{}
		for i, e := range as {
			if e.HasValue {
				values[e.Name] = e.Value
			}
			names[i] = e.Name
		}
		if ex, err = st.ExplainPid(ctx, v, pid, names, values); err != nil {
			return a.launchErr(err)
		}
	}
	if a.format == "json" {
		return present.JSON(a.stdout, ex.JSON(title))
	}
	ex.WriteText(a.stdout, title)
	return nil
}
