package plan

import (
	"strings"

	"github.com/childproof/childproof/envres/script"
)

// Command is an external command run in the foreground. It is plain data,
// safe for concurrent use while no one changes it.
type Command struct {
	// Pos locates the command (File as in envres.Result.Files).
	script.Pos
	// Name is the program as written (argv[0]), or "" when not known.
	Name string
}

// How says how a worker starts.
type How string

// The ways a worker starts.
const (
	// HowExec is an exec'd command: the script becomes the worker.
	HowExec How = "exec"
	// HowBackground is a command started with & (or setsid -f).
	HowBackground How = "background"
	// HowForeground is the last external command of a script, or a
	// command run with NAME=VALUE before it.
	HowForeground How = "foreground"
)

// Start is one place where a worker starts. It is plain data, safe for
// concurrent use while no one changes it.
type Start struct {
	// Pos locates the command (File as in envres.Result.Files).
	script.Pos
	// Chain is the source/exec chain that led there.
	Chain []script.Pos
	How   How
	// Nohup is set for a command started with nohup.
	Nohup bool
	// Argv is the command's argv, each word resolved as far as the
	// analysis goes.
	Argv []Word
	// Dir is the absolute working directory; "" when not known statically.
	Dir string
	// Env lists the exported variables the scripts set on the way, sorted
	// by name, except those set by an env file load (see EnvFiles).
	Env []EnvSetting
	// EnvFiles are the absolute paths of the env files loaded into the
	// exported environment on the way, in the order loaded.
	EnvFiles []string
	// Inherit names caller variables the scripts export as they are
	// (export NAME, NAME=$NAME).
	Inherit []string
	// Unresolved describes what reaches the worker that the analysis
	// cannot resolve (a dynamic load, a value set on some paths only).
	Unresolved []Note
	// Reset is set when the environment was reset on the way (env -i, sudo).
	Reset bool
}

// Note is a remark at a place in a script. It is plain data, safe for
// concurrent use while no one changes it.
type Note struct {
	script.Pos
	Text string
}

// EnvSetting is an exported variable the scripts set. It is plain data,
// safe for concurrent use while no one changes it.
type EnvSetting struct {
	Name  string
	Value Word
	// Pos locates the assignment (Column is 0: not recorded).
	script.Pos
	// Clobbered is set when an env file loaded later assigned the name
	// again: the worker got the file's value, not this one.
	Clobbered bool
}

// Word is a word of the worker's argv or an exported value, resolved as far
// as the analysis goes. It is plain data, safe for concurrent use while no
// one changes it.
type Word struct {
	// Parts are the word's literal text and references to the caller's
	// environment, in order; nil when the word cannot be expressed so.
	Parts []Part
	// Text is the word as written in the script.
	Text string
}

// Resolved reports whether w is made of literal text and caller variables only.
func (w Word) Resolved() bool { return w.Parts != nil }

// Literal returns the word's value when it is literal text only.
func (w Word) Literal() (string, bool) {
	var b strings.Builder
	for _, p := range w.Parts {
		if p.Env != "" {
			return "", false
		}
		b.WriteString(p.Lit)
	}
	return b.String(), w.Parts != nil
}

// Part is literal text, or the caller's value of a variable. It is plain
// data, safe for concurrent use while no one changes it.
type Part struct {
	// Lit is the text when Env is "".
	Lit string
	// Env names the caller's variable.
	Env string
	// Default is used when Env is unset (HasDefault): ${X:-d}, ${X:=d}.
	Default    string
	HasDefault bool
	// Required is set for ${X:?msg}: the script refuses to go on without X.
	Required bool
	// Loaded names the env file Env's value was loaded from (as the load
	// describes it), when the script read it from one: the value is not
	// the script's text and never appears in a Part.
	Loaded string
}
