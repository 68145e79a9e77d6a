package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/childproof/childproof/export"
	"github.com/childproof/childproof/internal/atomicfile"
	"github.com/spf13/cobra"
)

func init() { register("export", newExportCmd) }

func newExportCmd(a *app) *cobra.Command {
	var vars []string
	var o export.Options
	var to, kind string
	var output string
	c := &cobra.Command{
		Use: "export --to systemd|k8s|slurm|nomad [SPEC[:NAME] | :NAME | NAME] [--image IMAGE] [-o FILE]",
		Long: `export renders one launch of the spec for another engine and puts childproof verify
in the engine's own check slot, so the proof travels with the launch:

  systemd  a .service unit; ExecStartPost= runs childproof verify --pid $MAINPID … --wait
  k8s      a Deployment (or --kind pod); startup and readiness probes exec
           childproof verify --pid 1 …; needs --image
  slurm    an sbatch script whose step is srun childproof run SPEC:NAME (the spec ships
           beside it); #SBATCH lines from the spec's slurm block
  nomad    a job (exec driver, private pid namespace) whose service has a script check
           running childproof verify --pid 1 …

No secret value is ever written. A value from env() or file(), a name in the launch's
secret list and the env file's values become references the engine resolves (systemd:
an EnvironmentFile= under /etc/childproof; k8s: Secrets; Nomad: a template reading Nomad
variables; SLURM: the job's environment), and the output's header says what to create.
env() is always such a reference here, even when it has a default or the caller has the
variable: export reads no value of the caller's environment.

Without SPEC, childproof.hcl here is read (its only launch, or :NAME or NAME of it).
Paths are this machine's; --dir rebases the spec's directory for a target that keeps the
project elsewhere. A spec feature the engine cannot express is an error naming it (exit 2).
See docs/export.md.`,
		Example: `  childproof export --to systemd examples/01-login-shell/childproof.hcl:login-shell-fixed -o mock-llm.service
  childproof export --to k8s childproof.hcl:api --image registry.example/api:1.4 --childproof-image registry.example/childproof:1
  childproof export --to slurm childproof.hcl:train -o train.sbatch
  childproof export --to nomad childproof.hcl:api --dir /opt/api`,
		Args:              cobra.MaximumNArgs(1),
		ValidArgsFunction: completeSpec,
		RunE: func(c *cobra.Command, args []string) error {
			o.Engine, o.Kind = export.Engine(to), export.Kind(kind)
			if o.Engine == "" {
				return &exitError{code: exitUsage, err: errors.New("export needs --to ENGINE"), hint: "--to takes " + strings.Join(engineNames(), ", ")}
			}
			// The spec runs on the target: no caller value is read (and
			// its program need not exist here: a warning, see needPrograms).
			a.lookupEnv, a.envPlaceholders = export.LookupEnv, true
			arg, err := specOrLaunchName(args)
			if err != nil {
				return err
			}
			_, l, err := a.loadLaunch(c.Context(), arg, vars)
			if err != nil {
				return err
			}
			if o.Childproof == "" && o.Engine == export.Systemd {
				// systemd runs ExecStartPost= without the shell's PATH:
				// this very childproof, by its absolute path.
				o.Childproof = thisChildproof()
			}
			if o.Engine == export.Slurm {
				for _, pat := range export.SlurmPatterns(l) {
					fmt.Fprintf(a.stderr, "childproof: warning: export: inherit %q is a pattern and #SBATCH --export= takes names: no variable it matches reaches the job; list the names in inherit (the script's header says so)\n", pat)
				}
			}
			out, err := export.Render(c.Context(), l, o)
			if err != nil {
				var ue *export.UnsupportedError
				if errors.As(err, &ue) {
					hint := fmt.Sprintf("change the spec, or export it to another engine (--to takes %s)", strings.Join(engineNames(), ", "))
					if ue.Subject != nil {
						// A spec problem: a diagnostic at the part, with its
						// line unless that holds a secret value.
						diags, files := ue.Diagnostics()
						a.writeDiagnostics(a.stderr, files, diags)
						fmt.Fprintf(a.stderr, "childproof: hint: %s\n", hint)
						return silentExit(exitUsage)
					}
					return &exitError{code: exitUsage, err: err, hint: hint}
				}
				var oe *export.OptionError
				if errors.As(err, &oe) {
					return exitf(exitUsage, "%s", oe.Say(exportWords))
				}
				return exitf(exitUsage, "%v", err)
			}
			if output == "" {
				_, err := a.stdout.Write(out)
				return err
			}
			if err := atomicfile.WriteOutput(output, out, 0o644); err != nil {
				return exitf(exitUsage, "cannot write %s: %v", output, err)
			}
			return nil
		},
	}
	addVarFlag(c, &vars)
	f := c.Flags()
	f.StringVar(&to, "to", "", "the engine: `systemd`, k8s, slurm or nomad")
	f.StringVarP(&output, "output", "o", "", "write to `FILE` (atomically; default: stdout)")
	f.StringVar(&o.Image, "image", "", "k8s: the container `IMAGE` that holds the worker")
	f.StringVar(&kind, "kind", "", "k8s: `deployment` (default) or pod")
	f.StringVar(&o.ChildproofImage, "childproof-image", "", "k8s: an `IMAGE` holding /usr/local/bin/childproof, copied in by an init container")
	f.StringVar(&o.Dir, "dir", "", "write the spec's directory as `DIR` (an absolute path on the target)")
	f.StringVar(&o.Childproof, "childproof", "", "the childproof `PROGRAM` the check runs on the target (default: systemd, the absolute path of this childproof; elsewhere childproof, from the target's PATH)")
	_ = c.RegisterFlagCompletionFunc("to", cobra.FixedCompletions(engineNames(), cobra.ShellCompDirectiveNoFileComp))
	_ = c.RegisterFlagCompletionFunc("kind", cobra.FixedCompletions([]string{string(export.KindDeployment), string(export.KindPod)}, cobra.ShellCompDirectiveNoFileComp))
	return c
}

// exportWords are export's flags for the export.Options fields.
var exportWords = export.OptionWords{Engine: "--to", Dir: "--dir", Kind: "--kind", Image: "--image IMAGE", Kubernetes: "--to k8s"}

// engineNames are export.Engines as --to spells them.
func engineNames() []string {
	names := make([]string, len(export.Engines))
	for i, e := range export.Engines {
		names[i] = string(e)
	}
	return names
}

// thisChildproof is the absolute path of the running childproof as it
// was invoked (argv[0], looked up in PATH when it has no slash), so that a
// symlink such as /usr/local/bin/childproof stays the path an upgrade
// keeps valid; else os.Executable's; "" when neither is known (the
// export then writes childproof, from PATH).
func thisChildproof() string {
	if len(os.Args) > 0 && os.Args[0] != "" {
		p := os.Args[0]
		if !strings.ContainsRune(p, filepath.Separator) {
			p, _ = exec.LookPath(p)
		}
		if p != "" {
			if abs, err := filepath.Abs(p); err == nil {
				if fi, err := os.Stat(abs); err == nil && fi.Mode().IsRegular() {
					return abs
				}
			}
		}
	}
	if p, err := os.Executable(); err == nil {
		return p
	}
	return ""
}
