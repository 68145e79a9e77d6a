// Command childproof launches a process from a declarative HCL spec and proves,
// from the kernel's own records, that the launch did what the spec said.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime"
	"syscall"

	"github.com/childproof/childproof/launcher"
	"github.com/childproof/childproof/outcome"
	"github.com/hashicorp/hcl/v2"
	"github.com/spf13/cobra"
)

func main() {
	launcher.RelayMain() // the log relay of a detached launch runs as this binary
	goos := runtime.GOOS
	if scriptHooks != nil {
		goos = scriptHooks()
	}
	ctx, stop := signalContext()
	defer stop()
	os.Exit(runOn(ctx, goos, os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// scriptHooks is nil except in the testscripts' build of childproof (-tags
// childprooftest, scripthooks_childprooftest.go): there it runs the
// scripts' test server or port helper when asked to, and returns the
// platform childproof acts as.
var scriptHooks func() (goos string)

// signalContext is the context of one childproof process: done at SIGINT
// or SIGTERM (the test binary's childproof uses it too). run arms the
// interrupt watchdog (armWatchdog) on it.
func signalContext() (context.Context, context.CancelFunc) {
	return signal.NotifyContext(context.WithValue(context.Background(), signalCtxKey{}, true), os.Interrupt, syscall.SIGTERM)
}

// exitError is a command's failure: its outcome (the exit code is
// outcome.ExitCode's), what to say and a hint. A nil err means the
// command already reported what went wrong and only the outcome remains.
type exitError struct {
	code outcome.Kind
	err  error
	hint string
}

func (e *exitError) Error() string {
	if e.err == nil {
		return fmt.Sprintf("exit %d", e.code.Code())
	}
	return e.err.Error()
}

func (e *exitError) Unwrap() error { return e.err }

// OutcomeKind makes an exitError an outcome.Classified.
func (e *exitError) OutcomeKind() outcome.Kind { return e.code }

// exitf returns an exitError with a formatted message.
func exitf(code outcome.Kind, format string, args ...any) error {
	return &exitError{code: code, err: fmt.Errorf(format, args...)}
}

// silentExit returns an exitError whose message was already printed.
func silentExit(code outcome.Kind) error { return &exitError{code: code} }

// app holds what every subcommand shares: the streams and the common flags.
type app struct {
	stdin          io.Reader
	stdout, stderr io.Writer

	format string
	// stateDirs are the --state-dir values (stateDir: the one used).
	stateDirs  []string
	showValues bool
	noColor    bool

	// lookupEnv answers the spec's env() while a command loads a spec; nil
	// means the caller's environment (export sets its own: see
	// export.LookupEnv).
	lookupEnv func(string) (string, bool)
	// envPlaceholders: lookupEnv answers placeholders for the target's
	// values (export): paths built from env() are not checked here.
	envPlaceholders bool
	// needPrograms makes a command[0] that cannot be found here a spec
	// error (check and the commands that launch); elsewhere (stop, logs,
	// export, …) it is a warning.
	needPrograms bool

	// launchesNothing is set by the commands that launch nothing (check,
	// verify, explain, stop, logs): there an unset env() in the spec is an
	// unknown value, "from the caller, not set here", not an error.
	launchesNothing bool

	// jsonLines makes --format json write each report as one compact
	// line (JSON Lines): up writes one report per launch.
	jsonLines bool

	// specWarnings are the spec warnings warn printed for the selected
	// launches; check writes them in its machine formats too.
	specWarnings hcl.Diagnostics
}

// run is main without the process: it parses args, runs one command and
// returns the exit code. Tests call it directly.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return runOn(ctx, runtime.GOOS, args, stdin, stdout, stderr)
}

// runOn is run with the commands as they are on goos (tests simulate
// macOS and Windows on Linux with it).
func runOn(ctx context.Context, goos string, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	a := &app{stdin: stdin, stdout: stdout, stderr: stderr}
	root := newRootCmd(a, goos, args)
	root.SetArgs(args)
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)
	if ctx.Value(signalCtxKey{}) != nil {
		// Every command ends on SIGINT/SIGTERM, also one stuck where it
		// does not watch ctx.
		if c, _, err := root.Find(args); err == nil && c != root {
			defer armWatchdog(ctx, c.Name(), interruptGrace, stderr, os.Exit)()
		}
	}
	err := root.ExecuteContext(ctx)
	var ee *exitError
	var status outcome.Status
	switch {
	case err == nil:
	case errors.As(err, &status):
		// A foreground worker's own status, passed on: said, so that a
		// worker's exit 3 does not read as "verification failed" (3).
		if status != 0 {
			fmt.Fprintf(stderr, "childproof: the worker exited with status %d after it was verified: that is its own exit status, passed on (not a childproof failure)\n", int(status))
		}
	case errors.As(err, &ee):
		if ee.err != nil {
			fmt.Fprintf(stderr, "childproof: error: %v\n", ee.err)
		}
		if ee.hint != "" {
			fmt.Fprintf(stderr, "childproof: hint: %s\n", ee.hint)
		}
	default:
		// Anything else comes from flag or argument parsing: a usage error.
		fmt.Fprintf(stderr, "childproof: error: %v\n", err)
		fmt.Fprintf(stderr, "childproof: hint: run '%s' for usage\n", helpCommand(root, args))
	}
	return outcome.ExitCode(err)
}

// helpCommand names the help invocation for the command args select.
func helpCommand(root *cobra.Command, args []string) string {
	c, _, err := root.Find(args)
	if err != nil || c == root {
		return "childproof --help"
	}
	return c.CommandPath() + " --help"
}

// newRootCmd builds the command tree for args: every command, or only
// the one args name first (see oneCommand).
func newRootCmd(a *app, goos string, args []string) *cobra.Command {
	root := &cobra.Command{
		Use:   "childproof",
		Short: "launch a process from an HCL spec and prove it from /proc",
		Long: `childproof launches a process from a declarative HCL spec and then proves, from the
kernel's own records, that the launch did what the spec said: the required environment
reached the process that does the work, that very process owns the port, and no login
shell, .env re-source or stale listener got in between. It also reviews dispatch shell
scripts statically, before anything runs.`,
		SilenceErrors: true,
		SilenceUsage:  true,
	}
	root.CompletionOptions.HiddenDefaultCmd = false
	pf := root.PersistentFlags()
	pf.StringVar(&a.format, "format", "text", "output format: text or json (lint and check: also sarif, github)")
	pf.StringArrayVar(&a.stateDirs, "state-dir", nil, "state directory (default $CHILDPROOF_STATE_DIR, $XDG_STATE_HOME/childproof or ~/.local/state/childproof); ps takes several, or a glob")
	pf.BoolVar(&a.showValues, "show-values", false, "show environment values instead of keyed digests")
	pf.BoolVar(&a.noColor, "no-color", false, "never colour output (also honours NO_COLOR)")
	root.SetFlagErrorFunc(flagError)
	root.RegisterFlagCompletionFunc("format", completeFormat)
	root.PersistentPreRunE = func(c *cobra.Command, args []string) error {
		if err := checkFlagValues(c); err != nil {
			return err
		}
		if err := a.checkStateDirs(c); err != nil {
			return err
		}
		if ci, ok := commandOf(c); ok {
			a.launchesNothing, a.needPrograms = ci.launchesNothing, ci.needsPrograms
		}
		return a.checkFormatFlag(c)
	}
	only := oneCommand(args)
	if only == "" {
		// --version is the root's own flag: reading the build info
		// (about 1% of a probe's start-up instructions) is for it alone.
		root.Version = buildVersion()
		root.SetVersionTemplate("childproof {{.Version}}\n")
	}
	addCommands(root, a, goos, only)
	requireCommand(root)
	if only == "" {
		strictCompletion(root)
	} else {
		// Nobody asks for completion or help of the whole tree here.
		root.CompletionOptions.DisableDefaultCmd = true
	}
	return root
}

// checkFormat reports a usage error when the --format value is not one of allowed.
func (a *app) checkFormat(allowed ...string) error {
	for _, f := range allowed {
		if a.format == f {
			return nil
		}
	}
	return exitf(exitUsage, "unknown --format %q (want one of %v)", a.format, allowed)
}

// color reports whether w should get ANSI colour.
func (a *app) color(w io.Writer) bool {
	if a.noColor || os.Getenv("NO_COLOR") != "" {
		return false
	}
	for {
		u, ok := w.(underlying)
		if !ok {
			break
		}
		w = u.Underlying()
	}
	return isTerminal(w)
}
