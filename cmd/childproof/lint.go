package main

import (
	"errors"
	"fmt"
	"os"
	"runtime/debug"

	"github.com/spf13/cobra"

	"github.com/childproof/childproof/cmd/childproof/internal/gitdiff"
	"github.com/childproof/childproof/envres"
	"github.com/childproof/childproof/lintreport"
	"github.com/childproof/childproof/outcome"
)

func init() { register("lint", newLintCmd) }

func newLintCmd(a *app) *cobra.Command {
	var (
		overrides []string
		requires  []string
		dir       string
		strict    bool
		diffBase  string
	)
	cmd := &cobra.Command{
		Use: "lint [--override NAME[=VALUE]]… [--require NAME]… [--dir DIR] [--strict] [--diff-base REF] SCRIPT|DIRECTORY… [-- ARG…]",
		Long: `lint reads each launcher or dispatch script, and every script it sources or execs,
without running anything, and reports each statement that would change or drop a protected
variable on the way to the worker: env files loaded into the exported environment, assignments,
unset, env -i, sudo, su, login and interactive shells, background launches, pidfiles,
all-interfaces binds and no-op aliases.

Protected variables are the --override names (with the launcher's value, or without one)
and the --require names. ARGs after -- are the scripts' positional parameters.

A DIRECTORY stands for the shell scripts under it, found as shfmt -l finds them (by
extension .sh/.bash/.mksh, or a shell shebang), skipping hidden directories (.git) and
vendored trees (node_modules, vendor, third_party): "childproof lint ." reviews a repository.

Exit status: 0 when no finding is an error, 1 when one is (with --strict, any finding),
2 for a usage error or a script that cannot be read or parsed. A script that does not parse
is a parse-error finding at its file:line:col; the others are still linted, and the run
exits 2 after printing every finding.

Suppress a finding with a comment on its line or the line before:
  # childproof disable=RULE[,RULE]`,
		Example: `  childproof lint --override HF_HUB_ENABLE_HF_TRANSFER=0 launch.sh
  childproof lint --require MOCK_LLM_KEY --format sarif scripts/start.sh > lint.sarif
  childproof lint --override API_MODE=test run.sh -- --arm 2
  childproof lint --diff-base origin/main --format github scripts/*.sh
  childproof lint --format sarif . > lint.sarif`,
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			scripts, scriptArgs, at := args, []string(nil), cmd.ArgsLenAtDash()
			if at >= 0 {
				scripts, scriptArgs = args[:at], args[at:]
			}
			if len(scripts) == 0 {
				return &exitError{code: exitUsage, err: errors.New("lint needs at least one SCRIPT"), hint: "run 'childproof lint --help' for usage"}
			}
			scripts, err := envres.ExpandDirs(dir, scripts)
			if err != nil {
				return exitf(exitUsage, "%v", err)
			}
			if _, err := overrideSyntax.parse(overrides); err != nil {
				return err
			}
			cfg := envres.LintRequest{Dir: dir, Scripts: scripts, Args: scriptArgs, ArgsGiven: at >= 0, Overrides: overrides, Require: requires}.Config()
			var changes *gitdiff.Changes
			if diffBase != "" {
				d := dir
				if d == "" {
					d = "."
				}
				c, err := gitdiff.Since(cmd.Context(), d, diffBase)
				if err != nil {
					return &exitError{code: exitUsage, err: fmt.Errorf("--diff-base: %w", err),
						hint: "give a git revision of the repository the scripts are in, e.g. --diff-base origin/main"}
				}
				changes = c
			}
			lintGC()
			res, err := envres.RunLint(cmd.Context(), cfg)
			if err != nil {
				return lintErr(err)
			}
			if changes != nil {
				res = changes.Findings(res, dir)
			}
			if err := lintreport.Write(a.stdout, a.format, res, lintreport.Options{Color: a.color(a.stdout), Dir: dir, ToolVersion: lintToolVersion()}); err != nil {
				return exitf(exitUsage, "writing the report: %v", err)
			}
			// Every finding is printed; a script that does not parse
			// still makes the run exit 2 (contract §2).
			return lintErr(res.Verdict(strict))
		},
	}
	f := cmd.Flags()
	f.StringArrayVar(&overrides, "override", nil, "protected variable `NAME[=VALUE]` the launcher sets (repeatable)")
	f.StringArrayVar(&requires, "require", nil, "variable `NAME` that must reach the worker (repeatable)")
	f.StringVar(&dir, "dir", "", "directory scripts are resolved against and reported relative to (default: current)")
	f.BoolVar(&strict, "strict", false, "exit 1 on warnings too")
	f.StringVar(&diffBase, "diff-base", "", "report only findings on lines changed since the git revision `REF` (or reached through a changed line)")
	return cmd
}

// lintErr renders an error of a lint run (envres.RunLint,
// Result.Verdict): a *envres.FindingsError exits silently (the report
// shows the findings); nil stays nil.
func lintErr(err error) error {
	var fe *envres.FindingsError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &fe):
		return silentExit(fe.OutcomeKind())
	}
	return &exitError{code: outcome.Of(err), err: err}
}

// lintToolVersion is SARIF's tool.driver.version: the version the
// version command prints (module version, or the commit of a checkout).
func lintToolVersion() string { return buildVersion() }

// lintGCPercent is the garbage collector's GOGC for lint: a lint run is
// short and allocates far more than it keeps (syntax trees and evaluated
// words, dropped script by script), so at the default 100 it collects
// every few MB from its first milliseconds on (62 collections on make
// bench's 1,000 scripts; 13 at 400). 400 lets the heap grow to five times
// what is live: about 80 MB peak RSS on those scripts instead of 45 MB,
// for about a tenth less CPU time. A 10,000-line script stays near 22 MB.
const lintGCPercent = 400

// lintGC sets lintGCPercent unless the user set GOGC.
func lintGC() {
	if _, set := os.LookupEnv("GOGC"); !set {
		debug.SetGCPercent(lintGCPercent)
	}
}
