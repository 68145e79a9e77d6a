package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/childproof/childproof/envres"
	"github.com/childproof/childproof/launcher"
	"github.com/childproof/childproof/lintreport"
	"github.com/childproof/childproof/redact"
	"github.com/childproof/childproof/schema"
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
				if loc != "" && !filepath.IsAbs(loc) {
					loc = displayPath(filepath.Join(l.Dir, loc), false)
				}
				if pe.Line > 0 {
					loc = fmt.Sprintf("%s:%d:%d", loc, pe.Line, pe.Column)
				}
				fmt.Fprintf(a.stderr, "%s: error: %s (in the dispatch chain of launch %q)\n", loc, pe.Msg, l.Name)
				return silentExit(exitUsage)
			}
			return exitf(exitUsage, "launch %q: lint: %v", l.Name, err)
		}
		res = relativeTo(res, l.Dir)
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
	if errs > 0 || (strict && warns > 0) {
		return silentExit(exitFindings)
	}
	return nil
}

// writeSummary prints what a launch would run. Names only, never values.
func (a *app) writeSummary(w io.Writer, f *schema.File, l *schema.Launch) {
	row := func(key, format string, args ...any) {
		fmt.Fprintf(w, "  %-10s %s\n", key, fmt.Sprintf(format, args...))
	}
	at := ""
	if r := l.Ranges.Block; r.Filename != "" {
		at = fmt.Sprintf(" (%s:%d)", r.Filename, r.Start.Line)
	}
	fmt.Fprintf(w, "launch %q%s\n", l.Name, at)
	// A literal that is a secret's value too (the env value of a name in
	// the secret list, written again in command) is shown as <NAME>.
	sec := l.Mask()
	if len(l.Dispatch) > 0 {
		row("dispatch", "bash --noprofile --norc %s", argvString(l.Dispatch, "dispatch", l.Sensitive, l.Unknown, sec))
	} else {
		row("command", "%s", argvString(l.Command, "command", l.Sensitive, l.Unknown, sec))
	}
	row("dir", "%s", displayPath(l.Dir, l.Sensitive["dir"]))
	if l.EnvFile != "" {
		row("env_file", "%s", displayPath(l.EnvFile, l.Sensitive["env_file"]))
	}
	a.writeEnvSources(w, l)
	if p := l.Protected(); len(p) > 0 {
		row("protected", "%s", strings.Join(p, ", "))
	}
	if len(l.Require) > 0 {
		row("require", "%s", strings.Join(l.Require, ", "))
	}
	// Secret names: the secret list, and env values from env()/file()
	// (a --set of either is never stored in the round history).
	var fromEnv []string
	for _, n := range slices.Sorted(maps.Keys(l.Env)) {
		if !l.IsSecret(n) && launcher.SecretName(l, n) {
			fromEnv = append(fromEnv, n)
		}
	}
	switch {
	case len(l.Secret) > 0 && len(fromEnv) > 0:
		row("secret", "%s; from env()/file(): %s", strings.Join(l.Secret, ", "), strings.Join(fromEnv, ", "))
	case len(l.Secret) > 0:
		row("secret", "%s", strings.Join(l.Secret, ", "))
	case len(fromEnv) > 0:
		row("secret", "from env()/file(): %s", strings.Join(fromEnv, ", "))
	}
	for _, p := range l.Ports {
		extra := ""
		if p.AllowAllInterfaces {
			extra = " (all interfaces allowed)"
		}
		row("port", "%s %s%s", p.Name, hostPort(p.PortAddress(), p.Number), extra)
	}
	if len(l.Ports) == 0 {
		row("port", "none declared: no port is checked")
	}
	switch {
	case l.Worker.Comm != "":
		row("worker", "comm %s", hideIf(l.Worker.Comm, l.Sensitive["worker.comm"]))
	case l.Worker.Exe != "":
		row("worker", "exe %s", hideIf(l.Worker.Exe, l.Sensitive["worker.exe"]))
	case len(l.Ports) > 0:
		row("worker", "the owner of port %d", l.Ports[0].Number)
	default:
		row("worker", "the launched process")
	}
	if l.Ready.HTTP != "" {
		row("ready", "GET %s answers 2xx, within %s", hideIf(l.Ready.HTTP, l.Sensitive["ready.http"]), l.ReadyTimeout())
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
// sources (schema.Launch.VarSources: the winner first). Names only.
func (a *app) writeEnvSources(w io.Writer, l *schema.Launch) {
	sources, err := l.VarSources(os.Environ())
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

var plainArg = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9_@%+=:,./-]+$`) })

// argvString renders argv shell-quoted, with values from env() or file()
// replaced by a placeholder.
func argvString(argv []string, key string, sensitive, unknown map[string]bool, sec *redact.Set) string {
	parts := make([]string, len(argv))
	for i, s := range argv {
		switch {
		case unknown[fmt.Sprintf("%s[%d]", key, i)]:
			parts[i] = "<from the caller, not set here>"
		case sensitive[fmt.Sprintf("%s[%d]", key, i)]:
			parts[i] = "<from env>"
		case sec.Arg(s) != s:
			parts[i] = sec.Arg(s)
		case plainArg().MatchString(s):
			parts[i] = s
		default:
			parts[i] = "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
		}
	}
	return strings.Join(parts, " ")
}

func hideIf(s string, sensitive bool) string {
	if sensitive {
		return "<from env>"
	}
	return s
}

// displayPath shows p relative to the working directory when it lies
// below it.
func displayPath(p string, sensitive bool) string {
	if sensitive {
		return "<from env>"
	}
	if wd, err := os.Getwd(); err == nil {
		if rel, err := filepath.Rel(wd, p); err == nil && !strings.HasPrefix(rel, "..") {
			return rel
		}
	}
	return p
}

func hostPort(addr string, port int) string {
	if strings.Contains(addr, ":") {
		return fmt.Sprintf("[%s]:%d", addr, port)
	}
	return fmt.Sprintf("%s:%d", addr, port)
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
