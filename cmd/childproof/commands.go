package main

import (
	"fmt"
	"strings"

	"github.com/childproof/childproof/lintreport"
	"github.com/spf13/cobra"
)

// commandInfo is one subcommand: its name, its one-line help, whether it
// needs Linux, the --format values it takes and how it loads a spec.
type commandInfo struct {
	name  string
	short string
	// formats are the --format values it takes; nil: text and json.
	formats []string
	// launchesNothing: it launches nothing, so a spec's env() the caller
	// has not set is an unknown value (app.launchesNothing).
	launchesNothing bool
	// needsPrograms: a command[0] not found here is a spec error
	// (app.needPrograms).
	needsPrograms bool
	// needsLinux: the command starts, reads or signals processes, or reads
	// the records of launches (which exist only where launches run): it
	// needs /proc, pidfds and sock_diag. Elsewhere it is listed in help and
	// exits 2 saying it needs Linux.
	needsLinux bool
}

// commandTable is every subcommand childproof has (cobra adds help and
// completion), on every platform. A new command adds its line here and
// registers its constructor under the same name; TestCommandTable fails
// when the two disagree, or when a command that does not need Linux is
// built from a file that is not compiled for macOS and Windows.
var commandTable = []commandInfo{
	// Commands that read specs and scripts only: everywhere.
	{name: "check", short: "validate a spec and lint its dispatch chain; nothing runs", formats: lintreport.Formats, launchesNothing: true, needsPrograms: true},
	{name: "lint", short: "statically check launcher/dispatch scripts for what they do to protected variables", formats: lintreport.Formats},
	{name: "import", short: "write a spec that launches what a launch script launches, without the script"},
	{name: "export", short: "render a launch for systemd, Kubernetes, SLURM or Nomad, with childproof verify as its check", formats: textOnly},
	{name: "install", short: "copy this childproof binary into DIR (a Kubernetes init container's volume)"},
	{name: "version", short: "print childproof's version (also --version)", formats: textOnly},

	// Commands that launch, inspect or signal processes, or read launch
	// records: Linux only.
	{name: "run", short: "launch without rc files, verify on the worker, then supervise or detach", needsPrograms: true, needsLinux: true},
	{name: "up", short: "start the launches of a spec in depends_on order, each verified before its dependents", needsPrograms: true, needsLinux: true},
	{name: "relaunch", short: "relaunch a recorded launch with exactly this delta, and prove it on the worker", needsPrograms: true, needsLinux: true},
	{name: "verify", short: "verify an already running tree on its worker, read-only", launchesNothing: true, needsLinux: true},
	{name: "explain", short: "show a variable on every process from the launch root down to the worker", launchesNothing: true, needsLinux: true},
	{name: "ps", short: "census of recorded launches: alive, gone, pid reused, port holder", needsLinux: true},
	{name: "logs", short: "print or follow a launch's output from its log in the state dir", formats: textOnly, launchesNothing: true, needsLinux: true},
	{name: "history", short: "the launch's crash-fix rounds: delta, outcome, how each worker ended", needsLinux: true},
	{name: "stop", short: "stop a recorded launch: SIGTERM its group, wait, then SIGKILL", launchesNothing: true, needsLinux: true},
	{name: "down", short: "stop the launches of a spec in reverse depends_on order", launchesNothing: true, needsLinux: true},
}

// constructors are the subcommands built into this binary, by name. Each
// command's file adds its own in an init function, so that files never
// conflict; a command that needs Linux does so from a _linux.go file.
var constructors = map[string]func(*app) *cobra.Command{}

func register(name string, f func(*app) *cobra.Command) {
	if _, dup := constructors[name]; dup {
		panic("childproof: command " + name + " registered twice")
	}
	constructors[name] = f
}

// addCommands adds the commands of commandTable to root as they are on
// goos: there a command that needs Linux, off Linux, is a stub that exits
// 2 saying so. The table's short help wins over the constructor's. A
// non-empty only adds that command alone.
func addCommands(root *cobra.Command, a *app, goos, only string) {
	for _, ci := range commandTable {
		if only != "" && ci.name != only {
			continue
		}
		var c *cobra.Command
		switch f := constructors[ci.name]; {
		case ci.needsLinux && goos != "linux":
			c = needsLinuxCmd(ci, goos)
		case f == nil:
			panic(fmt.Sprintf("childproof: command %s has no constructor on %s", ci.name, goos))
		default:
			c = f(a)
		}
		c.Short = ci.short
		root.AddCommand(c)
	}
}

// needsLinuxCmd is what a command that needs Linux is elsewhere: listed in
// help, and exit 2 saying it needs Linux whatever its arguments.
func needsLinuxCmd(ci commandInfo, goos string) *cobra.Command {
	return &cobra.Command{
		Use:                ci.name,
		DisableFlagParsing: true,
		RunE: func(*cobra.Command, []string) error {
			return &exitError{code: exitUsage,
				err:  fmt.Errorf("%s needs Linux (it reads /proc and uses pidfds); this is %s", ci.name, goos),
				hint: portableCommands() + " work here; run the launch on a Linux machine"}
		},
	}
}

// portableCommands names the commands that work everywhere, for a hint:
// "check, lint, import, export, install and version".
func portableCommands() string {
	var names []string
	for _, ci := range commandTable {
		if !ci.needsLinux {
			names = append(names, ci.name)
		}
	}
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}

// oneCommand is the command args run when it is the only one the
// invocation can need: args[0] names a command of commandTable. Then
// only that command is built (every command's flags and help cost every
// invocation about 0.3M instructions, 7% of `childproof version`). ""
// (build them all) for no arguments, a flag first (--help, --version,
// --format …), help, completion and cobra's __complete, and an unknown
// word (its "unknown command" error).
func oneCommand(args []string) string {
	if len(args) == 0 {
		return ""
	}
	for _, ci := range commandTable {
		if ci.name == args[0] {
			return ci.name
		}
	}
	return ""
}

// commandOf is the table's line of c's subcommand (c or the ancestor
// below the root); false for the root, help and completion.
func commandOf(c *cobra.Command) (commandInfo, bool) {
	for ; c != nil && c.Parent() != nil; c = c.Parent() {
		if c.Parent().Parent() == nil {
			for _, ci := range commandTable {
				if ci.name == c.Name() {
					return ci, true
				}
			}
		}
	}
	return commandInfo{}, false
}
