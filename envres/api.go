package envres

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sort"
	"strings"

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
const CommandFile = "<command>"

// Finding is one lint finding; its JSON form is the documented output of
// lint and check --format json. It is plain data, safe for concurrent use
// while no one changes it.
type Finding struct {
	Rule     string   `json:"rule"`
	Severity Severity `json:"severity"`
	// Pos is where the finding is (its file, line and byte column).
	Pos
	Message   string   `json:"message"`
	Variables []string `json:"variables,omitempty"`
	// Chain is the source/exec chain that led to the finding, ending at
	// the finding's own file and line (chain links' columns are not
	// serialised).
	Chain []Pos `json:"chain,omitempty"`
	// Sources are, for an env-file-clobber finding, where each variable's
	// value comes from (not serialised: relaunch --in-env-file edits the
	// file instead of refusing).
	Sources []EnvSource `json:"-"`
	// Reads are the env files the finding's load read (env-file-clobber,
	// env-file-load; not serialised): lint --diff-base keeps a finding
	// whose env file changed.
	Reads []FileRead `json:"-"`
	// InString is set when the finding is inside a string run as a
	// script (bash -c '…', a here-document, a package.json script); not
	// serialised: a suggested edit of its line is not offered there.
	InString bool `json:"-"`
}

// FileRead is a file a finding depends on. It is plain data, safe for
// concurrent use while no one changes it.
type FileRead struct {
	// Path is absolute; Shown is how findings name it (relative to the
	// lint directory, loaded values masked).
	Path, Shown string
}

// EnvSource is the env file an env-file-clobber finding's variable comes
// from. It is plain data, safe for concurrent use while no one changes it.
type EnvSource struct {
	Variable string
	// File is the absolute path of the env file the load read; empty
	// when the value does not come from a file the chain only reads.
	File string
	// Generated is set when the chain itself writes File (a redirect to
	// it): an edit would be overwritten.
	Generated bool
	// Overwritten is set when a later statement changes the variable
	// again: this load does not decide the worker's value.
	Overwritten bool
}

// Result is what Lint found. Its methods only read it (Rebase and
// WithoutClobbers return copies): a Result is safe for concurrent use while
// no one changes it.
type Result struct {
	Findings []Finding `json:"findings"`
	// Files are every file read, in the order first read.
	Files []string `json:"files"`
	// Sources holds the text of each file in Files (and of CommandFile),
	// for snippets and column conversion; never serialised.
	Sources map[string][]byte `json:"-"`
}

// Errors reports whether res has a finding of severity error (or, with
// strict, of any severity).
func (res *Result) Errors(strict bool) bool {
	for _, f := range res.Findings {
		if f.Severity == SeverityError || strict {
			return true
		}
	}
	return false
}

// ParseErrors returns the parse-error findings of res (Config.KeepGoing).
func (res *Result) ParseErrors() []Finding {
	var out []Finding
	for _, f := range res.Findings {
		if f.Rule == ParseErrorRule.Name {
			out = append(out, f)
		}
	}
	return out
}

// ParseError is a script that cannot be read or parsed (exit 2 in the CLI).
// It is plain data, safe for concurrent use while no one changes it.
type ParseError struct {
	// Pos is where parsing failed; Line is 0 when the file could not be
	// read at all.
	Pos
	Msg string
	// Err is the underlying error, if any.
	Err error
}

func (e *ParseError) Error() string {
	return e.Pos.String() + ": " + e.Msg
}

func (e *ParseError) Unwrap() error { return e.Err }

// At is where e is, named for a user in the directory wd, as `childproof
// check` shows it: File, relative to dir as LintLaunch reports it, made
// relative to wd when it lies below it (RebasePath; an absolute File stays
// as it is), then ":line:col" when e has a line.
func (e *ParseError) At(dir, wd string) string {
	loc := e.File
	if !filepath.IsAbs(loc) {
		loc = RebasePath(loc, dir, wd)
	}
	if e.Line > 0 {
		loc = fmt.Sprintf("%s:%d:%d", loc, e.Line, e.Column)
	}
	return loc
}

// ErrBadConfig is returned (wrapped, as a *ConfigError) for an invalid
// Config.
var ErrBadConfig = errors.New("envres: invalid configuration")

// ConfigError is the error for an invalid Config; it wraps ErrBadConfig. It
// is plain data, safe for concurrent use while no one changes it.
type ConfigError struct {
	// Problem says what is wrong, without the package's prefix:
	// `invalid configuration: invalid variable name "1X"`.
	Problem string
	// Err is the underlying error, if any (the dir's).
	Err error
}

func (e *ConfigError) Error() string { return "envres: " + e.Problem }

// Unwrap returns ErrBadConfig and the underlying error.
func (e *ConfigError) Unwrap() []error {
	if e.Err == nil {
		return []error{ErrBadConfig}
	}
	return []error{ErrBadConfig, e.Err}
}

// badConfig is the *ConfigError of what format says.
func badConfig(err error, format string, args ...any) *ConfigError {
	return &ConfigError{Problem: "invalid configuration: " + fmt.Sprintf(format, args...), Err: err}
}

// Lint analyses cfg's scripts. It returns a *ParseError (wrapped) when a
// script cannot be read or parsed, and the context's error when ctx ends.
func Lint(ctx context.Context, cfg Config) (*Result, error) {
	return analyze(ctx, cfg, nil)
}

// analyze is Lint; a non-nil p also records where workers start (Plan).
func analyze(ctx context.Context, cfg Config, p *planner) (*Result, error) {
	dir := cfg.Dir
	if dir == "" {
		dir = "."
	}
	absDir, err := filepath.Abs(dir)
	if err != nil {
		return nil, badConfig(err, "dir: %v", err)
	}
	a := newAnalyzer(ctx, cfg, absDir)
	if p != nil {
		a.plan, p.a = p, a
	}
	for _, o := range cfg.Overrides {
		if !validName(o.Name) {
			return nil, badConfig(nil, "invalid variable name %q", o.Name)
		}
	}
	for _, r := range cfg.Require {
		if !validName(r) {
			return nil, badConfig(nil, "invalid variable name %q", r)
		}
	}
	for _, s := range cfg.Scripts {
		if err := a.lintScript(s); err != nil {
			return nil, err
		}
		if a.fatal != nil {
			return nil, a.fatal
		}
		a.forget()
	}
	if len(cfg.Argv) > 0 {
		if err := a.lintArgv(cfg.Argv); err != nil {
			return nil, err
		}
	}
	if a.fatal != nil {
		return nil, a.fatal
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return a.result(), nil
}

// validName is the environment-variable name rule of specs (schema.IsEnvName).
func validName(s string) bool { return schema.IsEnvName(s) }

func (a *analyzer) result() *Result {
	a.runRules()
	res := &Result{Findings: []Finding{}, Files: a.files, Sources: a.sources}
	if res.Files == nil {
		res.Files = []string{}
	}
	for _, f := range a.findings {
		if a.suppressed(f) {
			continue
		}
		res.Findings = append(res.Findings, *f)
	}
	SortFindings(res.Findings)
	return res
}

// SortFindings sorts by file, line, column, rule: the documented order of
// every output format.
func SortFindings(fs []Finding) {
	sort.SliceStable(fs, func(i, j int) bool {
		a, b := fs[i], fs[j]
		if a.Pos != b.Pos {
			return a.Pos.less(b.Pos)
		}
		if a.Rule != b.Rule {
			return a.Rule < b.Rule
		}
		return strings.Join(a.Variables, ",") < strings.Join(b.Variables, ",")
	})
}
