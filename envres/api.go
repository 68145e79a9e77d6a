package envres

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sort"
	"strings"

	"github.com/childproof/childproof/envres/interp"
	"github.com/childproof/childproof/envres/script"
	"github.com/childproof/childproof/schema"
)

// Config says what to lint (interp.Config). Lint only reads it: a Config is
// safe for concurrent use while no one changes it.
type Config = interp.Config

// Override is a protected variable the launcher sets before the script
// runs (interp.Override). It is plain data, safe for concurrent use while
// no one changes it.
type Override = interp.Override

// CommandFile is the file name findings on Config.Argv are reported in.
const CommandFile = script.CommandFile

// ArgvIndex returns the index of the argument of argv that a finding in
// CommandFile at byte column col points at (the file is argv shell-quoted
// on one line), or -1.
func ArgvIndex(argv []string, col int) int { return interp.ArgvIndex(argv, col) }

// Pos is a place in a script (script.Pos): every position envres reports
// is one. It is plain data, safe for concurrent use while no one changes
// it.
type Pos = script.Pos

// ParseError is a script that cannot be read or parsed (exit 2 in the CLI;
// script.ParseError). It is plain data, safe for concurrent use while no
// one changes it.
type ParseError = script.ParseError

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
	res, _, err := analyze(ctx, cfg, nil)
	return res, err
}

// analyze is Lint; a non-nil p also records where workers start (Plan).
// It returns the lint directory, absolute, too.
func analyze(ctx context.Context, cfg Config, p *interp.Planner) (*Result, string, error) {
	dir := cfg.Dir
	if dir == "" {
		dir = "."
	}
	absDir, err := filepath.Abs(dir)
	if err != nil {
		return nil, "", badConfig(err, "dir: %v", err)
	}
	for _, o := range cfg.Overrides {
		if !schema.IsEnvName(o.Name) {
			return nil, "", badConfig(nil, "invalid variable name %q", o.Name)
		}
	}
	for _, r := range cfg.Require {
		if !schema.IsEnvName(r) {
			return nil, "", badConfig(nil, "invalid variable name %q", r)
		}
	}
	an, err := interp.Analyze(ctx, cfg, absDir, p)
	if err != nil {
		return nil, "", err
	}
	return result(an), absDir, nil
}

// SortFindings sorts by file, line, column, rule: the documented order of
// every output format.
func SortFindings(fs []Finding) {
	sort.SliceStable(fs, func(i, j int) bool {
		a, b := fs[i], fs[j]
		if a.Pos != b.Pos {
			return posLess(a.Pos, b.Pos)
		}
		if a.Rule != b.Rule {
			return a.Rule < b.Rule
		}
		return strings.Join(a.Variables, ",") < strings.Join(b.Variables, ",")
	})
}

// posLess orders positions by file, line, column.
func posLess(p, q Pos) bool {
	if p.File != q.File {
		return p.File < q.File
	}
	if p.Line != q.Line {
		return p.Line < q.Line
	}
	return p.Column < q.Column
}
