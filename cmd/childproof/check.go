package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
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
			spec, err := specOrDefault(args)
			if err != nil {
				return err
			}
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
			writeSummary(a.stdout, l)
		}
		res, err := envres.LintLaunch(ctx, l)
		if err != nil {
			var pe *envres.ParseError
			if errors.As(err, &pe) {
				fmt.Fprintf(a.stderr, "%s: error: %s (in the dispatch chain of launch %q)\n", pe.At(l.Dir, wd), pe.Msg, l.Name)
				return silentExit(exitUsage)
			}
			return exitf(exitUsage, "launch %q: lint: %v", l.Name, err)
		}
		res = res.Rebase(l.Dir, wd)
		results = append(results, res)
		if text {
			fmt.Fprintln(a.stdout, res.CheckRow())
			if e, w := res.Count(); e+w > 0 {
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
	if text {
		fmt.Fprintln(a.stdout)
		fmt.Fprintln(a.stdout, envres.CheckVerdict(f.Path, len(launches), merged, strict))
	}
	if merged.Errors(strict) {
		return silentExit(exitFindings)
	}
	return nil
}

// writeSummary prints what a launch would run (schema.Summary.WriteText:
// names and placeholders, never values), its paths relative to the
// working directory (displayPath) and the worker row verify's choice.
func writeSummary(w io.Writer, l *schema.Launch) {
	s := l.Summary(os.Environ())
	worker := "the launched process"
	switch verify.SelectionOf(l) {
	case verify.SelectComm:
		worker = "comm " + s.WorkerComm.String()
	case verify.SelectExe:
		worker = "exe " + s.WorkerExe.String()
	case verify.SelectPort:
		worker = fmt.Sprintf("the owner of port %d", l.Ports[0].Number)
	}
	if len(l.Roles) > 0 {
		worker = roleRows(l)
	}
	_ = s.WriteText(w, l, schema.SummaryText{Path: func(p string) string { return envres.RebasePath(p, "", workDir()) }, Worker: worker})
}

// roleRows describes a launch's worker roles for the summary: each role's
// name, selector (a value from env() or file() shown as a placeholder),
// count and ports, the primary role first as run picks it.
func roleRows(l *schema.Launch) string {
	var rows []string
	for i, r := range l.Roles {
		attr, v := "comm", r.Worker.Comm
		if v == "" {
			attr, v = "exe", r.Worker.Exe
		}
		if l.Sensitive[fmt.Sprintf("worker[%d].%s", i, attr)] {
			v = schema.HiddenValue
		}
		row := fmt.Sprintf("%s: %s %s", r.Name, attr, v)
		if n := r.Worker.N(); n > 1 {
			row += fmt.Sprintf(" (%d processes)", n)
		}
		if len(r.Ports) > 0 {
			row += " owning " + strings.Join(r.Ports, ", ")
		}
		if i == l.PrimaryRole() {
			rows = append([]string{row}, rows...)
		} else {
			rows = append(rows, row)
		}
	}
	return "roles " + strings.Join(rows, "; ")
}

// workDir is the working directory paths are shown relative to (below it;
// envres.RebasePath, present.TextOptions.Dir); "" when unknown: paths as
// recorded.
func workDir() string {
	wd, _ := os.Getwd()
	return wd
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
