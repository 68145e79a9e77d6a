package envres

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/childproof/childproof/outcome"
)

// LintRequest is a lint run as the lint command's flags and arguments
// give it (childproof lint). Its zero value lints no script. It is plain
// data, safe for concurrent use while no one changes it.
type LintRequest struct {
	// Dir is --dir: the directory Scripts are resolved against and
	// reported relative to; "" is the working directory.
	Dir string
	// Scripts are the SCRIPT arguments, directories expanded (ExpandDirs).
	Scripts []string
	// Args are the scripts' positional parameters, the arguments after
	// "--"; ArgsGiven says "--" was given. Without it the positional
	// parameters are unknown: a case over "$1" is walked on every arm.
	Args      []string
	ArgsGiven bool
	// Overrides are the --override arguments, NAME or NAME=VALUE (the
	// caller checked their syntax): a NAME alone is protected with an
	// unknown value (the launcher's, which the lint does not know).
	Overrides []string
	// Require are the --require names.
	Require []string
}

// Config is the configuration r lints with: whole-repository mode
// (KeepGoing: a script that does not parse is a parse-error finding and
// the others are still linted).
func (r LintRequest) Config() Config {
	cfg := Config{Dir: r.Dir, Scripts: r.Scripts, Args: r.Args, ArgsUnknown: !r.ArgsGiven, Require: r.Require, KeepGoing: true}
	for _, o := range r.Overrides {
		name, value, known := strings.Cut(o, "=")
		cfg.Overrides = append(cfg.Overrides, Override{Name: name, Value: value, Known: known})
	}
	return cfg
}

// LintRunError is a lint run that exits 2 (outcome.Usage): Lint could not
// lint (a script that cannot be read or parsed, a configuration it cannot
// use: Err), or it linted and some scripts do not parse (Unparsed, Err
// nil) — every finding is reported, and still the run fails (contract
// §2). It is plain data, safe for concurrent use while no one changes it.
type LintRunError struct {
	// Err is Lint's error; nil when the run linted (see Unparsed).
	Err error
	// Unparsed are the run's parse-error findings (Result.ParseErrors);
	// nil when Err is set.
	Unparsed []Finding
}

// Error is the lint command's message: the *ParseError's text, the
// *ConfigError's Problem, or Err's; else the first unparsed file's
// position and message, with how many more do not parse.
func (e *LintRunError) Error() string {
	if e.Err == nil {
		if len(e.Unparsed) == 0 {
			return "lint: no script that does not parse"
		}
		more := ""
		if len(e.Unparsed) > 1 {
			more = fmt.Sprintf(" (and %d more file(s) that do not parse)", len(e.Unparsed)-1)
		}
		return fmt.Sprintf("%s: %s%s", e.Unparsed[0].Pos, e.Unparsed[0].Message, more)
	}
	var pe *ParseError
	var ce *ConfigError
	switch {
	case errors.As(e.Err, &pe):
		return pe.Error()
	case errors.As(e.Err, &ce):
		return ce.Problem
	}
	return e.Err.Error()
}

func (e *LintRunError) Unwrap() error { return e.Err }

// OutcomeKind makes a LintRunError an outcome.Classified.
func (e *LintRunError) OutcomeKind() outcome.Kind { return outcome.Usage }

// FindingsError is a lint run with a finding of severity error (with
// Strict, of any severity): outcome.Findings. The findings themselves are
// the report; the error adds nothing to say. It is plain data, safe for
// concurrent use while no one changes it.
type FindingsError struct {
	// Count is how many findings count: of severity error, or all with
	// Strict.
	Count int
	// Strict is a strict run: warnings count too.
	Strict bool
}

func (e *FindingsError) Error() string {
	if e.Strict {
		return fmt.Sprintf("lint: %d finding(s), warnings counted (strict)", e.Count)
	}
	return fmt.Sprintf("lint: %d finding(s) of severity error", e.Count)
}

// OutcomeKind makes a FindingsError an outcome.Classified.
func (e *FindingsError) OutcomeKind() outcome.Kind { return outcome.Findings }

// RunLint is Lint for the lint command: Lint's error comes back as a
// *LintRunError.
func RunLint(ctx context.Context, cfg Config) (*Result, error) {
	res, err := Lint(ctx, cfg)
	if err != nil {
		return res, &LintRunError{Err: err}
	}
	return res, nil
}

// Verdict is how a lint run whose result is res ends, once its findings
// are reported: a *LintRunError when a script does not parse (a
// parse-error finding), else a *FindingsError when a finding is an error
// (with strict, any finding), else nil.
func (res *Result) Verdict(strict bool) error {
	if pe := res.ParseErrors(); len(pe) > 0 {
		return &LintRunError{Unparsed: pe}
	}
	n := 0
	for _, f := range res.Findings {
		if f.Severity == SeverityError || strict {
			n++
		}
	}
	if n > 0 {
		return &FindingsError{Count: n, Strict: strict}
	}
	return nil
}
