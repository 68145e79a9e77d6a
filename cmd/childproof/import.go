package main

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/childproof/childproof/importspec"
)

func init() { register("import", newImportCmd) }

func newImportCmd(a *app) *cobra.Command {
	var output, name string
	cmd := &cobra.Command{
		Use: "import SCRIPT [-o FILE] [--name NAME] [-- ARG…]",
		Long: `import reads a launch script (and every script it sources or execs) with the same
static analysis as lint, nothing runs, and writes a spec that starts the same worker
without the script: the worker's argv (static values resolved, "$@" from the ARGs after --,
${X:-d} as env("X", "d"), ${X:?msg} as env("X") plus require), its directory, the env
file the script loads (now loaded by childproof first, with env winning over it), the
script's literal exports as env, a port block from the worker's arguments (--port N,
--addr HOST:PORT, -p N, --bind, --listen, --host) and a worker block from the program's name.

What the spec replaces or cannot express (a login shell, nohup … & with a pidfile, a
sleep/curl readiness loop, pkill or kill $(cat PIDFILE), a conditional) becomes a
"# childproof import:" comment above the part of the spec it concerns, and is listed on
stderr; a comment that says TODO needs a human.

The spec goes to FILE (written atomically), or to stdout. Paths in it are relative to
FILE's directory (to the current directory for stdout).

Exit status: 0 when the spec passes check and nothing needs a human, 1 when a human must
finish it (TODO comments, or check fails), 2 for a usage error or a script that cannot be
read or parsed.`,
		Example: `  childproof import launch.sh -o childproof.hcl
  childproof import scripts/start-api.sh --name api -- --arm 2`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			script, scriptArgs := args[0], []string(nil)
			if at := cmd.ArgsLenAtDash(); at >= 0 {
				if at != 1 {
					return &exitError{code: exitUsage, err: errors.New("import takes one SCRIPT"), hint: "run 'childproof import --help' for usage"}
				}
				scriptArgs = args[1:]
			} else if len(args) != 1 {
				return &exitError{code: exitUsage, err: errors.New("import takes one SCRIPT; put its arguments after --"), hint: "run 'childproof import --help' for usage"}
			}
			return a.importScript(cmd.Context(), script, scriptArgs, output, name)
		},
	}
	f := cmd.Flags()
	f.StringVarP(&output, "output", "o", "", "write the spec to `FILE` (default: stdout)")
	f.StringVar(&name, "name", "", "the launch block's `NAME` (default: the script's file name)")
	return cmd
}

func (a *app) importScript(ctx context.Context, script string, args []string, output, name string) error {
	spec, checked, err := importspec.ImportTo(ctx, script, args, output, importspec.Options{Name: name})
	if err != nil {
		if ne := (*importspec.NameError)(nil); errors.As(err, &ne) {
			return exitf(exitUsage, "--name %v", ne)
		}
		return exitf(exitUsage, "%v", err)
	}
	if output == "" {
		if _, err := a.stdout.Write(spec.Text); err != nil {
			return exitf(exitUsage, "%v", err)
		}
	}
	listed := spec.Listed()
	for _, n := range listed {
		fmt.Fprintln(a.stderr, n.Listing(script))
	}
	todo := spec.Todos()
	ok := a.importCheck(checked)
	where := "stdout"
	if output != "" {
		where = output
	}
	fmt.Fprintf(a.stderr, "childproof: import: wrote launch %q to %s: %s, %d to finish by hand", spec.Name, where, plural(len(listed), "note"), todo)
	if !ok {
		fmt.Fprintf(a.stderr, "; it does not pass check yet")
	}
	fmt.Fprintln(a.stderr)
	if todo > 0 || !ok {
		return silentExit(exitFindings)
	}
	return nil
}

// importCheck prints what importspec.Check found wrong with the written
// spec; it reports whether the spec passes.
func (a *app) importCheck(c *importspec.Checked) bool {
	if c.Diagnostics.HasErrors() {
		a.writeDiagnostics(a.stderr, c.Files, c.Diagnostics)
		return false
	}
	for _, l := range c.Lint {
		if l.Err != nil {
			fmt.Fprintf(a.stderr, "childproof: error: launch %q: lint: %v\n", l.Launch.Name, l.Err)
		} else if l.Result.Errors(false) {
			wd, _ := os.Getwd()
			_ = a.writeLint(a.stderr, "text", l.Result.Rebase(l.Launch.Dir, wd))
		}
	}
	return c.OK()
}
