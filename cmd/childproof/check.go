package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/childproof/childproof/envres"
	"github.com/childproof/childproof/lintreport"
	"github.com/childproof/childproof/schema"
	"github.com/childproof/childproof/verify"
	"github.com/spf13/cobra"
)

func init() { register("check", newCheckCmd) }

func newCheckCmd(a *app) *cobra.Command {
	var vars []string
	var strict bool
	c := &cobra.Command{
		Use: "check [SPEC[:NAME]]",
		Long: `check parses and validates an HCL spec, prints a short summary of what each launch
would run (argv or dispatch script, directory, environment variable NAMES with their
source, protected variables, ports, worker selector, readiness), and lints the dispatch
chain with the launch's protected variables. Environment values are never printed.

SPEC:NAME checks one launch of a file with several.

Exit status: 0 ok (warnings allowed unless --strict), 1 a lint finding of severity
error, 2 an invalid spec or an unparsable script (file:line:col diagnostics on stderr).`,
		Example: `  childproof check examples/01-login-shell/childproof.hcl
  childproof check examples/01-login-shell/childproof.hcl:login-shell-fixed
  childproof check --var port=18090 childproof.hcl
  childproof check --format json childproof.hcl:api
  childproof check --format sarif childproof.hcl > childproof.sarif`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			a.launchesNothing = true
			if err := a.checkFormat("text", "json", "sarif", "github"); err != nil {
				return err
			}
			spec, err := specOrDefault(args)
			if err != nil {
				return err
			}
			a.needPrograms = true
			return a.check(c.Context(), spec, vars, strict)
		},
		ValidArgsFunction: completeSpec,
	}
	addVarFlag(c, &vars)
	c.Flags().BoolVar(&strict, "strict", false, "exit 1 on warnings too")
	return c
}

func (a *app) check(ctx context.Context, arg string, vars []string, strict bool) error {
	f, launches, err := a.loadLaunches(ctx, arg, vars)
	if err != nil {
		return err
	}
	text := a.format == "text"
	wd, _ := os.Getwd()
	var results []*envres.Result
	for i, l := range launches {
		if text {
			if i > 0 {
				fmt.Fprintln(a.stdout)
			}
			a.writeSummary(a.stdout, f, l)
		}
		res, err := envres.LintLaunch(ctx, l)
		if err != nil {
			var pe *envres.ParseError
			if errors.As(err, &pe) {
				loc := pe.File
				if !filepath.IsAbs(loc) {
					loc = envres.RebasePath(loc, l.Dir, wd)
				}
				if pe.Line > 0 {
					loc = fmt.Sprintf("%s:%d:%d", loc, pe.Line, pe.Column)
				}
				fmt.Fprintf(a.stderr, "%s: error: %s (in the dispatch chain of launch %q)\n", loc, pe.Msg, l.Name)
				return silentExit(exitUsage)
			}
			return exitf(exitUsage, "launch %q: lint: %v", l.Name, err)
		}
		res = res.Rebase(l.Dir, wd)
		results = append(results, res)
		if text {
			e, w := res.Count()
			switch {
			case e+w == 0 && len(res.Files) == 0:
				// A command launch: no script, nothing to lint but its argv.
				fmt.Fprintf(a.stdout, "  %-10s ok (no script: a command launch)\n", "lint")
			case e+w == 0:
				fmt.Fprintf(a.stdout, "  %-10s ok (%s)\n", "lint", strings.Join(res.Files, ", "))
			default:
				fmt.Fprintf(a.stdout, "  %-10s %s, %s\n", "lint", plural(e, "error"), plural(w, "warning"))
				if err := a.writeLint(a.stdout, "text", res); err != nil {
					return err
				}
			}
		}
	}
	merged := envres.Merge(results...)
	if !text {
		opts := lintreport.Options{Color: a.color(a.stdout), ToolVersion: lintToolVersion(), Diagnostics: lintreport.FromHCL(a.specWarnings)}
		if err := lintreport.Write(a.stdout, a.format, merged, opts); err != nil {
			return err
		}
	}
	errs, warns := merged.Count()
	if text {
		fmt.Fprintln(a.stdout)
		status := "ok"
		switch {
		case errs > 0:
			status = "FAILED"
		case warns > 0 && strict:
			status = "FAILED (--strict)"
		}
		lint := fmt.Sprintf("%s, %s", plural(errs, "lint error"), plural(warns, "lint warning"))
		fmt.Fprintf(a.stdout, "%s: %s: %s checked, %s\n", f.Path, status, plural(len(launches), "launch"), lint)
	}
	if merged.Errors(strict) {
		return silentExit(exitFindings)
	}
	return nil
}

// writeSummary prints what a launch would run (schema.Launch.Summary:
// names and placeholders, never values).
func (a *app) writeSummary(w io.Writer, f *schema.File, l *schema.Launch) {
	row := func(key, format string, args ...any) {
		fmt.Fprintf(w, "  %-10s %s\n", key, fmt.Sprintf(format, args...))
	}
	at := ""
	if r := l.Ranges.Block; r.Filename != "" {
		at = fmt.Sprintf(" (%s:%d)", r.Filename, r.Start.Line)
	}
	fmt.Fprintf(w, "launch %q%s\n", l.Name, at)
	s := l.Summary(os.Environ())
	if s.Dispatch {
		row("dispatch", "bash --noprofile --norc %s", strings.Join(s.Argv, " "))
	} else {
		row("command", "%s", strings.Join(s.Argv, " "))
	}
	row("dir", "%s", shownPath(s.Dir))
	if s.EnvFile != (schema.Shown{}) {
		row("env_file", "%s", shownPath(s.EnvFile))
	}
	writeEnvSources(w, s.Env, s.EnvErr)
	if p := l.Protected(); len(p) > 0 {
		row("protected", "%s", strings.Join(p, ", "))
	}
	if len(l.Require) > 0 {
		row("require", "%s", strings.Join(l.Require, ", "))
	}
	// Secret names: the secret list, and env values from env()/file()
	// (a --set of either is never stored in the round history).
	switch {
	case len(s.Secret) > 0 && len(s.SecretFromEnv) > 0:
		row("secret", "%s; from env()/file(): %s", strings.Join(s.Secret, ", "), strings.Join(s.SecretFromEnv, ", "))
	case len(s.Secret) > 0:
		row("secret", "%s", strings.Join(s.Secret, ", "))
	case len(s.SecretFromEnv) > 0:
		row("secret", "from env()/file(): %s", strings.Join(s.SecretFromEnv, ", "))
	}
	for _, p := range l.Ports {
		extra := ""
		if p.AllowAllInterfaces {
			extra = " (all interfaces allowed)"
		}
		row("port", "%s %s%s", p.Name, p.HostPort(), extra)
	}
	if len(l.Ports) == 0 {
		row("port", "none declared: no port is checked")
	}
	switch verify.SelectionOf(l) {
	case verify.SelectComm:
		row("worker", "comm %s", s.WorkerComm)
	case verify.SelectExe:
		row("worker", "exe %s", s.WorkerExe)
	case verify.SelectPort:
		row("worker", "the owner of port %d", l.Ports[0].Number)
	default:
		row("worker", "the launched process")
	}
	if s.ReadyHTTP != (schema.Shown{}) {
		row("ready", "GET %s answers 2xx, within %s", s.ReadyHTTP, l.ReadyTimeout())
	} else if len(l.Ports) > 0 {
		row("ready", "the worker owns the port and accepts a TCP connect, within %s", l.ReadyTimeout())
	} else {
		row("ready", "the worker is found and verified, within %s", l.ReadyTimeout())
	}
	row("attempts", "%d", l.EffectiveAttempts())
	row("on_stale", "%s", l.EffectiveOnStale())
	row("forbid", "%s", strings.Join(l.EffectiveForbidWrappers(), ", "))
	if r := l.Restart; r.EffectivePolicy() != schema.RestartNever {
		row("restart", "%s, at most %d, the first after %s (doubling, at most %s)", r.EffectivePolicy(), r.EffectiveMax(), r.EffectiveBackoff(), max(schema.MaxRestartBackoff, r.EffectiveBackoff()))
	}
	if len(l.DependsOn) > 0 {
		row("after", "%s (up starts and verifies them first)", strings.Join(l.DependsOn, ", "))
	}
}

// writeEnvSources lists every variable name the launch passes, with its
// sources (schema.Launch.VarSources: the winner first; err: the env
// file's error). Names only.
func writeEnvSources(w io.Writer, sources []schema.VarSource, err error) {
	if err != nil {
		fmt.Fprintf(w, "  %-10s %v\n", "env", err)
	}
	if len(sources) == 0 {
		fmt.Fprintf(w, "  %-10s none: the worker starts with an empty environment\n", "env")
		return
	}
	width := 0
	for _, s := range sources {
		width = max(width, len(s.Name))
	}
	for i, s := range sources {
		from := make([]string, len(s.From))
		for j, o := range s.From {
			from[j] = string(o)
			if o == schema.FromInheritPattern {
				from[j] += fmt.Sprintf(" (%s here)", plural(s.Matches, "match"))
			}
		}
		desc := from[0]
		if len(from) > 1 {
			desc += " (over " + strings.Join(from[1:], ", ") + ")"
		}
		if s.Unknown {
			desc += " (from the caller, not set here)"
		}
		if s.Unset {
			desc += " (unset here: not passed)"
		}
		if s.Removed {
			desc += " — removed before launch"
		}
		key := ""
		if i == 0 {
			key = "env"
		}
		fmt.Fprintf(w, "  %-10s %-*s  %s\n", key, width, s.Name, desc)
	}
}

// shownPath is a summary's path relative to the working directory when it
// lies below it (displayPath), or its placeholder.
func shownPath(s schema.Shown) string {
	if s.Hidden {
		return s.String()
	}
	return displayPath(s.Value, false)
}

// displayPath shows p relative to the working directory when it lies
// below it (envres.RebasePath).
func displayPath(p string, sensitive bool) string {
	if sensitive {
		return schema.HiddenValue
	}
	wd, _ := os.Getwd()
	return envres.RebasePath(p, "", wd)
}

func plural(n int, word string) string {
	if n == 1 {
		return fmt.Sprintf("1 %s", word)
	}
	if strings.HasSuffix(word, "h") {
		return fmt.Sprintf("%d %ses", n, word)
	}
	return fmt.Sprintf("%d %ss", n, word)
}
