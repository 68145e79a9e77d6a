package envres

import (
	"context"
	"errors"
)

// Override is a protected variable the launcher sets before the script runs.
type Override struct {
	// Name is the variable name.
	Name string
	// Value is the override's value; meaningful only when Known.
	Value string
	// Known reports whether Value is given (--override NAME=VALUE) or not (--override NAME).
	Known bool
}

// Config says what to lint.
type Config struct {
	// Dir is the directory relative paths are resolved against and reported
	// relative to. Empty means the current directory.
	Dir string
	// Scripts are the launcher or dispatch scripts to lint, each on its own.
	Scripts []string
	// Args are the scripts' positional parameters ($1…).
	Args []string
	// Argv, when set, is linted as if a script said `exec ARGV…` (a spec's
	// command); it is reported as file "<command>".
	Argv []string
	// Overrides are the protected variables with (or without) their values.
	Overrides []Override
	// Require names variables that must reach the worker.
	Require []string
	// Aliases maps extra no-op alias names to the real variable, on top of
	// the built-in ones.
	Aliases map[string]string
}

// ChainLink is one step of the source/exec chain that led to a finding.
type ChainLink struct {
	File string `json:"file"`
	Line int    `json:"line"`
}

// Finding is one lint finding (contract §5).
type Finding struct {
	Rule      string      `json:"rule"`
	Severity  string      `json:"severity"`
	File      string      `json:"file"`
	Line      int         `json:"line"`
	Column    int         `json:"column"`
	Message   string      `json:"message"`
	Variables []string    `json:"variables,omitempty"`
	Chain     []ChainLink `json:"chain,omitempty"`
}

// Result is what Lint found.
type Result struct {
	Findings []Finding `json:"findings"`
	// Files are every file read, in the order first read.
	Files []string `json:"files"`
}

// ParseError is a script that cannot be read or parsed (exit 2 in the CLI).
type ParseError struct {
	File      string
	Line, Col int
	Msg       string
}

func (e *ParseError) Error() string { return e.File + ": " + e.Msg }

// Lint analyses cfg's scripts. It returns a *ParseError (wrapped) when a
// top-level script cannot be read or parsed.
//
// This placeholder is replaced by the analyzer.
func Lint(ctx context.Context, cfg Config) (*Result, error) {
	return nil, errors.New("envres: analyzer not built yet")
}
