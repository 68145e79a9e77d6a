package envres

import "github.com/childproof/childproof/internal/wrapper"

// Severity is how much a rule's findings weigh: an error fails lint (and
// check, run), a warning fails only lint --strict. Its text is the JSON
// "severity" and SARIF's level.
type Severity string

// The severities.
const (
	SeverityError   Severity = "error"
	SeverityWarning Severity = "warning"
)

// A Rule is one lint check, in the style of golang.org/x/tools/go/analysis:
// a value with a stable name, a severity and documentation. Rules report; the
// driver (lintreport) formats. The names are stable: scripts, suppression
// comments and SARIF consumers match on them.
type Rule struct {
	// Name is the stable rule name, also the SARIF ruleId and the word in
	// suppression comments.
	Name string
	// Severity is SeverityError or SeverityWarning.
	Severity Severity
	// Short is a one-line description.
	Short string
	// Doc explains what the rule finds, why it matters and how to fix it
	// (SARIF help text).
	Doc string
	// Run reports the rule's findings from the facts of the walk (pass.go);
	// nil for the flow rules, which the walk reports where it finds them.
	Run func(*Pass)
}

// The rules, in the order of docs/lint.md.
var (
	EnvFileClobber = &Rule{
		Name: "env-file-clobber", Severity: SeverityError,
		Short: "an env file loaded into the exported environment changes a protected variable",
		Doc: `An env file is loaded into the exported environment (set -a + source, export $(… .env …),
eval "$(cat .env)", source <(…), while read … export, env $(cat .env) CMD, or a plain source that
reassigns a name the caller exported) and assigns a protected variable a value other than the
override's, or a value that cannot be known statically. The worker then runs with the file's value,
while the launcher's own environ still shows the override. Fix: load the file before the override
is applied, remove the name from the file, or re-export the override after the load.`,
	}
	EnvFileLoad = &Rule{
		Name: "env-file-load", Severity: SeverityWarning,
		Short: "an env file is loaded into the exported environment",
		Doc: `An env file is loaded into the exported environment of the worker, so every name it sets
overrides whatever the caller exported; or the file of a load cannot be resolved statically (a
dynamic path, a missing file), so what it changes is unknown. The finding lists the names the load
sets that reach the worker. Fix: load only the names you need, or make the path static.`,
	}
	AssignClobber = &Rule{
		Name: "assign-clobber", Severity: SeverityError,
		Short: "the script assigns an exported protected variable a different value",
		Doc: `The script itself assigns a protected (overridden) variable that is exported a different
value — or a value that may differ — before the worker runs. Fix: drop the assignment, or guard it
with : "${NAME:=default}" so that it only fills an unset name.`,
	}
	UnsetProtected = &Rule{
		Name: "unset-protected", Severity: SeverityError,
		Short: "a protected variable is unset or un-exported before the worker",
		Doc: `unset NAME, env -u NAME or export -n NAME removes a protected or required variable from the
environment the worker inherits. Fix: remove the statement or scope it to the command that needs it.`,
	}
	EnvReset = &Rule{
		Name: wrapper.EnvReset, Severity: SeverityError,
		Short: "the environment is reset before the worker",
		Doc: `env -i, exec -c, sudo without -E/--preserve-env, su and runuser start the next command with a
fresh environment: every protected variable is dropped on the way to the worker. Fix: pass the
variables explicitly (sudo --preserve-env=NAME, env -i NAME="$NAME" …) or avoid the wrapper.`,
	}
	LoginShell = &Rule{
		Name: wrapper.LoginShell, Severity: SeverityError,
		Short: "a login shell runs profile files before the worker",
		Doc: `bash -l/--login, sh -l, su -/-l/--login, sudo -i, runuser -l and exec -l start a login shell,
which runs /etc/profile and ~/.profile (or ~/.bash_profile): those files may export, reset or
source anything, including an env file. Fix: run the command directly, or bash --noprofile --norc.`,
	}
	InteractiveShell = &Rule{
		Name: wrapper.InteractiveShell, Severity: SeverityError,
		Short: "an interactive shell runs rc files before the worker",
		Doc: `bash -i (and -ic, -lic) or sh -i starts an interactive shell, which runs ~/.bashrc (or $ENV):
anything it exports wins over the launcher's overrides. Fix: drop -i; use bash --norc -c.`,
	}
	DynamicSource = &Rule{
		Name: "dynamic-source", Severity: SeverityWarning,
		Short: "a sourced or exec'd path cannot be resolved statically",
		Doc: `source, . or exec names a path that cannot be resolved statically (it depends on a variable,
a command's output or a directory that is not known), or the file is missing: what it does to the
environment is not checked. Fix: use a literal path relative to $(dirname "$0") or
${BASH_SOURCE%/*}.`,
	}
)

// ParseErrorRule is a script that cannot be read or parsed, reported as a
// finding of its own in whole-repository mode (Config.KeepGoing).
var ParseErrorRule = &Rule{
	Name: "parse-error", Severity: SeverityError,
	Short: "a script cannot be read or parsed",
	Doc: `A script given to lint (or found in a directory), or one the chain runs (bash F, ./F, exec F),
cannot be read or does not parse: a real syntax error, or a construct bash accepts and the parser
(mvdan.cc/sh) does not. Nothing in it is checked; the other scripts are. The CLI exits 2 after
printing every finding. Fix the syntax, or run the script with bash -n to compare.`,
}

// Rules returns every rule, in the order of docs/lint.md.
func Rules() []*Rule {
	return []*Rule{EnvFileClobber, EnvFileLoad, AssignClobber, UnsetProtected, EnvReset, LoginShell,
		InteractiveShell, BackgroundLaunch, Pidfile, AllInterfaces, NoopAlias, DynamicSource, EnvActivate, ParseErrorRule}
}

// RuleByName returns the rule with that name, or nil.
func RuleByName(name string) *Rule {
	for _, r := range Rules() {
		if r.Name == name {
			return r
		}
	}
	return nil
}
