package interp

import (
	"github.com/childproof/childproof/envres/script"
	"github.com/childproof/childproof/schema"
)

// Override is a protected variable the launcher sets before the script
// runs. It is plain data, safe for concurrent use while no one changes it.
type Override struct {
	// Name is the variable name.
	Name string
	// Value is the override's value; meaningful only when Known.
	Value string
	// Known reports whether Value is given (--override NAME=VALUE) or not (--override NAME).
	Known bool
}

// Config says what to lint. Lint only reads it: a Config is safe for
// concurrent use while no one changes it.
type Config struct {
	// Dir is the directory relative paths are resolved against and reported
	// relative to. Empty means the current directory.
	Dir string
	// Scripts are the launcher or dispatch scripts to lint, each on its own.
	Scripts []string
	// Args are the scripts' positional parameters ($1…).
	Args []string
	// ArgsUnknown says that the positional parameters are not known (the
	// CLI without "--"): Args is ignored, "$1" and "$@" are unknown and a
	// case over them walks every arm.
	ArgsUnknown bool
	// Argv, when set, is linted as if a script said `exec ARGV…` (a spec's
	// command); it is reported as file "<command>".
	Argv []string
	// Overrides are the protected variables with (or without) their values.
	Overrides []Override
	// Require names variables that must reach the worker.
	Require []string
	// IgnoreShebang says that the scripts are run by a shell named on the
	// command line (a spec's dispatch runs under bash --noprofile --norc),
	// not by their path: their shebang's options do not apply. Without it,
	// a top-level script's shebang is its invocation (#!/bin/bash -l is a
	// login shell, reported at line 1).
	IgnoreShebang bool
	// Aliases maps extra no-op alias names to the real variable, on top of
	// the built-in ones.
	Aliases map[string]string
	// KeepGoing is whole-repository mode: a script that cannot be read or
	// parsed — given, or run by the chain — is a parse-error finding at
	// its file:line:col, and the other scripts are still linted, instead
	// of Lint returning a *ParseError.
	KeepGoing bool
}

// CommandFile is the file name findings on Config.Argv are reported in.
const CommandFile = script.CommandFile

// validName is the environment-variable name rule of specs (schema.IsEnvName).
func validName(s string) bool { return schema.IsEnvName(s) }
