package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/childproof/childproof/launcher"
	"github.com/childproof/childproof/launcher/present"
	"github.com/childproof/childproof/launcher/relaunch"
	"github.com/childproof/childproof/verify"
	"github.com/spf13/cobra"
)

func init() { register("relaunch", newRelaunchCmd) }

func newRelaunchCmd(a *app) *cobra.Command {
	var vars, unsets []string
	var overrides overrideFlags
	var detach, noLint, inEnvFile, rollback bool
	var timeout time.Duration
	var round int
	c := &cobra.Command{
		Use: "relaunch NAME|SPEC[:NAME] --set NAME=VALUE…",
		Long: `relaunch is a crash-fix round: relaunch a recorded launch with one mitigation and know
that it engaged on the worker and that nothing else changed.

It loads the launch's spec (the SPEC given, or the spec path of the record of NAME),
lints its dispatch chain with the --set names protected (refusing on an error unless
--no-lint), stops the recorded launch if it still runs and its worker's fingerprint
still matches (a gone or reused pid is left alone), launches the same spec with the
--set values as extra overrides, and verifies the new worker as run does. Then it
compares the new worker's environment with the recorded worker's, name by name, as
keyed digests: the names whose digest differs must be exactly the --set names.

Anything else — an env_file edited meanwhile, a dispatcher clobbering the mitigation,
a variable dropped or added, a --set that changes nothing — is exit 3 with a "delta"
problem naming each unexpected name, and the new tree is stopped; the previous record
stays the baseline of the next round. No value is printed.

Rounds carry their overrides forward: every earlier round's --set is applied again
(drop one with --unset NAME; replay round N's exactly with --round N). A non-secret
--set value is kept in the launch's round history (mode 0600, in the state dir) for
that; a secret one (--set-secret, a name the spec makes secret) is never stored and
must be given again.

With --in-env-file, a --set name that an env file the dispatch chain re-sources would
clobber (the lint's env-file-clobber finding) is also written into that file, in place
(only that value: quoting, export, comments, CRLF kept), as part of the round; --unset
and --round put the file back byte for byte. A relaunch that fails after it stopped the
recorded launch names 'childproof relaunch NAME --round N' in its hint; --rollback runs
it at once, as its own round.

A --set of a known no-op alias (HF_XET_DISABLE, or a spec alias block) warns and names
the variable that takes effect.

Exit status as run: 0 verified and exactly the declared delta (foreground: the worker's
own status), 1 lint refused, 2 usage, 3 verification failed or an
unexpected delta, 4 port held by a stranger, 5 the worker exited before ready or no
launch of NAME is recorded, 6 locked, 130 interrupted (Ctrl-C or SIGTERM) before the
worker was ready.`,
		Example: `  childproof relaunch resource-env-fixed --set HF_HUB_DOWNLOAD_TIMEOUT=60 --detach
  childproof relaunch examples/03-dispatch-resource-env/childproof.hcl:resource-env-fixed --set LOG_LEVEL=debug
  childproof relaunch --format json job --set HF_HUB_ENABLE_HF_TRANSFER=0
  childproof relaunch job --set HF_HUB_ENABLE_HF_TRANSFER=0 --in-env-file --rollback`,
		Args:              cobra.MaximumNArgs(1),
		ValidArgsFunction: a.completeLaunchName,
		RunE: func(c *cobra.Command, args []string) error {
			arg, err := specOrDefault(args)
			if err != nil {
				return err
			}
			// Without --detach (or --detach=false), relaunch runs the way
			// the recorded launch ran.
			var detachFlag *bool
			if c.Flags().Changed("detach") {
				detachFlag = &detach
			}
			return a.relaunch(c.Context(), arg, relaunchArgs{vars: vars, overrides: overrides, unsets: unsets, round: round, detach: detachFlag, noLint: noLint, inEnvFile: inEnvFile, rollback: rollback, timeout: timeout})
		},
	}
	addVarFlag(c, &vars)
	overrides.add(c, "the delta, `NAME=VALUE` (repeatable): an extra override, and the only names allowed to change on the worker",
		"a secret delta, `NAME` (repeatable): the value comes from the caller's environment and is never stored")
	c.Flags().StringArrayVar(&unsets, "unset", nil, "drop an override carried forward from an earlier round, `NAME` (repeatable)")
	c.Flags().IntVar(&round, "round", 0, "replay round `N`'s overrides exactly (secret ones given again with --set-secret), as a new round")
	c.Flags().BoolVarP(&detach, "detach", "d", false, "return once the worker is verified; leave it running (default: as the recorded launch ran; --detach=false for the foreground)")
	c.Flags().BoolVar(&rollback, "rollback", false, "when the relaunch fails after the previous launch was stopped, relaunch that launch's round again at once (its own round, detached)")
	c.Flags().BoolVar(&inEnvFile, "in-env-file", false, "write each --set value that an env file of the dispatch chain would clobber into that env file, in place (the lint's env-file-clobber finding names it); --unset and --round put it back")
	c.Flags().BoolVar(&noLint, "no-lint", false, "relaunch even when the dispatch chain's lint finds an error")
	c.Flags().DurationVar(&timeout, "timeout", 0, "how long to wait after the stop signal to the previous launch before SIGKILL (default: its stop.timeout, else 10s)")
	return c
}

// relaunchArgs are relaunch's flags; detach nil means as the recorded
// launch ran.
type relaunchArgs struct {
	vars, unsets                []string
	overrides                   overrideFlags
	round                       int
	detach                      *bool
	noLint, inEnvFile, rollback bool
	timeout                     time.Duration
}

func (a *app) relaunch(ctx context.Context, arg string, ra relaunchArgs) error {
	vars, detachFlag, noLint, timeout := ra.vars, ra.detach, ra.noLint, ra.timeout
	in, err := a.parseOverrides(ra.overrides)
	if err != nil {
		return err
	}
	st, err := a.openState()
	if err != nil {
		return err
	}
	arg, rec, err := a.recordedSpecArg(st, arg)
	if err != nil {
		return err
	}
	// The recorded launch's --var values, under the ones given now: the
	// command line stays the recorded one unless --var says otherwise.
	given := vars
	f, l, err := a.loadLaunch(ctx, arg, vars)
	if err != nil {
		return err
	}
	if rec == nil { // SPEC[:NAME]: the spec names the launch
		rec, _ = st.Load(l.Name)
	}
	if rec != nil && len(rec.Vars) > 0 {
		var secret []string
		vars, secret = relaunch.RecordedVars(rec, given)
		if len(secret) > 0 {
			return &exitError{code: exitUsage, err: fmt.Errorf("the recorded launch was started with --var %s, whose value is a secret the record keeps only as a digest; nothing was stopped", strings.Join(secret, ", ")),
				hint: "give it again: childproof relaunch " + arg + " --var " + secret[0] + "=VALUE"}
		}
		f, l, err = a.loadLaunch(ctx, arg, vars)
	}
	if err != nil {
		return err
	}
	specHash := ""
	if f != nil {
		specHash = f.Hash
	}
	base := relaunch.ReadBase(st, l, specHash, rec)
	if t := present.SpecChangedText(base, l, a.textOptions()); t != "" {
		fmt.Fprintf(a.stderr, "childproof: warning: %s\n", t)
	}
	detach := base.Detach
	if detachFlag != nil {
		detach = *detachFlag
	}
	a.warnOverrides(l, in)
	if detach {
		a.warnDetachedRestart(l)
	}
	if ra.inEnvFile && len(in.Set) == 0 {
		return &exitError{code: exitUsage, err: errors.New("--in-env-file: no --set name to write into an env file; nothing was stopped"), hint: "drop --in-env-file: --unset and --round put an earlier edit back without it"}
	}
	// The lint judges the chain as the round runs it: after the env file
	// edits the round drops are put back (relaunch.Options.Lint).
	var lintErr error
	lint := func(ctx context.Context) (map[string]string, error) {
		inEnv, err := a.lintRelaunch(ctx, l, in, ra.inEnvFile, noLint)
		lintErr = err
		return inEnv, err
	}
	opts := relaunch.Options{Unset: ra.unsets, Round: ra.round, Lint: lint, Rollback: ra.rollback,
		Options: launcher.Options{FromSpec: true, StopGrace: timeout, State: st, Detach: detach, Tracking: launcher.Tracking{Subreaper: !detach}, EnvInput: in, ShowValues: a.showValues, Provenance: launcher.Provenance{Command: launcher.CommandRelaunch, Vars: vars, ArgvMayChange: len(given) > 0}}}
	opts.SpecHash = specHash
	sigs, stopSigs := forwardSignals(detach)
	defer stopSigs()
	lc := a.newConsole(false)
	defer lc.close()
	view := lc.view(l, detach)
	view.Attach(&opts.Options)
	opts.Notify, opts.Replaced = a.notify, a.replaced
	la, res, err := relaunch.Relaunch(ctx, l, opts)
	view.Started()
	a.writeRelaunchNotes(l.Name, res)
	if err != nil && lintErr != nil {
		return lintErr
	}
	if err != nil {
		err = a.launchErrWith(err, func(r *verify.Report) { a.writeRelaunch(a.stdout, present.NewRelaunchOutput(res, r)) })
		if res != nil {
			a.writeRollback(l.Name, res.Rollback)
		}
		return err
	}
	notesForCLI(la.Report)
	a.writeRelaunch(a.stdout, present.NewRelaunchOutput(res, la.Report))
	return a.supervise(la, l.Name, detach, sigs)
}

// writeRelaunch prints relaunch's output (present.RelaunchOutput): its
// JSON, or its text with the report painted.
func (a *app) writeRelaunch(w io.Writer, out *present.RelaunchOutput) {
	if a.format == "json" {
		present.JSON(w, out)
		return
	}
	out.WriteText(w, a.painted(w, reportPaint))
}

// writeRelaunchNotes says on stderr what a relaunch did besides the new
// launch (present.RelaunchNotes).
func (a *app) writeRelaunchNotes(name string, res *relaunch.Result) {
	for _, n := range present.RelaunchNotes(res, name, a.textOptions()) {
		prefix := "childproof: relaunch: "
		if n.Warning {
			prefix = "childproof: warning: relaunch: "
		}
		fmt.Fprintf(a.stderr, "%s%s\n", prefix, n.Text)
	}
}

// writeRollback says what relaunch --rollback did, when it was called
// for (present.RollbackText).
func (a *app) writeRollback(name string, rb relaunch.RollbackResult) {
	if t := present.RollbackText(&rb, name); t != "" {
		fmt.Fprintf(a.stderr, "childproof: relaunch: %s\n", t)
	}
}
