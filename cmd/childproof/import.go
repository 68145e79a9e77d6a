package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/childproof/childproof/importspec"
	"github.com/childproof/childproof/schema"
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
	if name != "" && !schema.IsLaunchName(name) {
		return exitf(exitUsage, "--name %q is not a launch name (letters, digits, '_', '.', '-'; at most 64)", name)
	}
	specDir, err := os.Getwd()
	if err != nil {
		return exitf(exitUsage, "%v", err)
	}
	if output != "" {
		abs, err := filepath.Abs(output)
		if err != nil {
			return exitf(exitUsage, "%v", err)
		}
		specDir = filepath.Dir(abs)
	}
	spec, err := importspec.Import(ctx, script, args, importspec.Options{Name: name, SpecDir: specDir})
	if err != nil {
		return exitf(exitUsage, "%v", err)
	}
	if output != "" {
		if err := os.MkdirAll(specDir, 0o755); err != nil {
			return exitf(exitUsage, "%v", err)
		}
	}

	// Write it (atomically to FILE, or to a scratch file beside where
	// stdout's paths are relative to), then check it where it lies.
	path := output
	if path == "" {
		tmp, err := os.CreateTemp(specDir, ".childproof-import-*.hcl")
		if err != nil {
			return exitf(exitUsage, "writing the spec to check it: %v", err)
		}
		path = tmp.Name()
		tmp.Close()
		defer os.Remove(path)
	}
	if err := writeFileAtomic(path, spec.Text); err != nil {
		return exitf(exitUsage, "%v", err)
	}
	if output == "" {
		if _, err := a.stdout.Write(spec.Text); err != nil {
			return exitf(exitUsage, "%v", err)
		}
	}
	listed := spec.Listed()
	todo := 0
	for _, n := range listed {
		loc := script
		if n.File != "" {
			loc = n.Pos.String()
		}
		kind := "note"
		if n.Todo {
			kind, todo = "TODO", todo+1
		}
		fmt.Fprintf(a.stderr, "%s: %s: %s\n", loc, kind, strings.Join(strings.Fields(n.Text), " "))
	}
	checked := a.importCheck(ctx, path)
	where := "stdout"
	if output != "" {
		where = output
	}
	fmt.Fprintf(a.stderr, "childproof: import: wrote launch %q to %s: %s, %d to finish by hand", spec.Name, where, plural(len(listed), "note"), todo)
	if !checked {
		fmt.Fprintf(a.stderr, "; it does not pass check yet")
	}
	fmt.Fprintln(a.stderr)
	if todo > 0 || !checked {
		return silentExit(exitFindings)
	}
	return nil
}

// importCheck prints what importspec.Check finds wrong with the written
// spec; it reports whether the spec passes.
func (a *app) importCheck(ctx context.Context, path string) bool {
	c := importspec.Check(ctx, path)
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

// writeFileAtomic writes data to path through a temporary file in the
// same directory and a rename.
func writeFileAtomic(path string, data []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(0o644); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
