package importspec

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/hashicorp/hcl/v2"

	"github.com/childproof/childproof/envres"
	"github.com/childproof/childproof/internal/atomicfile"
	"github.com/childproof/childproof/schema"
)

// Import reads the launch script (and every script it sources or execs)
// with envres's analysis, nothing runs, and writes the spec that starts
// the same worker without the script (Build). args are the script's
// positional parameters. opt.Script is set to script; a nil
// opt.DefaultInherit is schema.DefaultInherit. A script that cannot be read
// or parsed is a wrapped *envres.ParseError; an opt.Name that is no launch
// name (schema.IsLaunchName) is a *NameError.
func Import(ctx context.Context, script string, args []string, opt Options) (*Spec, error) {
	if opt.Name != "" && !schema.IsLaunchName(opt.Name) {
		return nil, &NameError{Name: opt.Name}
	}
	plan, err := envres.Plan(ctx, envres.Config{Scripts: []string{script}, Args: args})
	if err != nil {
		return nil, err
	}
	opt.Script = script
	if opt.DefaultInherit == nil {
		opt.DefaultInherit = schema.DefaultInherit
	}
	return Build(plan, opt), nil
}

// NameError is Import's error for an Options.Name that is no launch name
// (schema.IsLaunchName). It is plain data, safe for concurrent use while no
// one changes it.
type NameError struct {
	// Name is the name given.
	Name string
}

func (e *NameError) Error() string {
	return fmt.Sprintf("%q is not a launch name (letters, digits, '_', '.', '-'; at most 64)", e.Name)
}

// ImportTo is the whole import, as `childproof import` runs it: Import,
// with opt.SpecDir the directory of output (the working directory when
// output is ""); the spec written to output atomically (mode 0644, its
// directory made), or for output "" to a scratch file in that directory,
// removed before ImportTo returns; and that file checked where it lies
// (Check), so that the spec's relative paths resolve as they will. The
// Checked's Files hold the parsed text, for diagnostics after the scratch
// file is gone. An error (Import's: a wrapped *envres.ParseError, a
// *NameError; or the file not written) returns neither.
func ImportTo(ctx context.Context, script string, args []string, output string, opt Options) (*Spec, *Checked, error) {
	specDir, err := os.Getwd()
	if err != nil {
		return nil, nil, err
	}
	if output != "" {
		abs, err := filepath.Abs(output)
		if err != nil {
			return nil, nil, err
		}
		specDir = filepath.Dir(abs)
	}
	opt.SpecDir = specDir
	spec, err := Import(ctx, script, args, opt)
	if err != nil {
		return nil, nil, err
	}
	path := output
	if output != "" {
		if err := os.MkdirAll(specDir, 0o755); err != nil {
			return nil, nil, err
		}
	} else {
		tmp, err := os.CreateTemp(specDir, ".childproof-import-*.hcl")
		if err != nil {
			return nil, nil, fmt.Errorf("writing the spec to check it: %w", err)
		}
		path = tmp.Name()
		tmp.Close()
		defer os.Remove(path)
	}
	if err := atomicfile.WriteOutput(path, spec.Text, 0o644); err != nil {
		return nil, nil, err
	}
	return spec, Check(ctx, path), nil
}

// Listed returns the notes a caller lists: each once (a note repeated in
// each launch block is one), without the note that only says where the
// worker starts.
func (s *Spec) Listed() []Note {
	var out []Note
	seen := map[Note]bool{}
	for _, n := range s.Notes {
		if n.Where || seen[n] {
			continue
		}
		seen[n] = true
		out = append(out, n)
	}
	return out
}

// Listing is n as `childproof import` lists it on stderr:
// "file:line:col: TODO: text" (kind "note" when the spec replaces what the
// script did), the place script for a note about the script as a whole,
// the text on one line.
func (n Note) Listing(script string) string {
	loc := script
	if n.File != "" {
		loc = n.Pos.String()
	}
	kind := "note"
	if n.Todo {
		kind = "TODO"
	}
	return fmt.Sprintf("%s: %s: %s", loc, kind, strings.Join(strings.Fields(n.Text), " "))
}

// Todos is how many of the listed notes (Listed) a human must finish.
func (s *Spec) Todos() int {
	todo := 0
	for _, n := range s.Listed() {
		if n.Todo {
			todo++
		}
	}
	return todo
}

// Checked is what check says of a spec Import wrote, once it is written.
// Its methods only read it: a Checked is safe for concurrent use while no
// one changes it.
type Checked struct {
	// Files are the spec's parsed files, for the diagnostics' source lines.
	Files map[string]*hcl.File
	// Diagnostics are the spec's load diagnostics. With an error among
	// them no launch is linted (Lint is nil).
	Diagnostics hcl.Diagnostics
	// Lint holds each launch's lint, in the spec's order.
	Lint []LaunchLint
}

// LaunchLint is one launch's lint (envres.LintLaunch). It is plain data,
// safe for concurrent use while no one changes it.
type LaunchLint struct {
	// Launch is the launch linted.
	Launch *schema.Launch
	// Result is what the lint found; nil when Err is set.
	Result *envres.Result
	// Err is set when the lint could not run (an unparsable script).
	Err error
}

// OK reports whether the spec passes check: it loads without error, and
// every launch lints without an error finding.
func (c *Checked) OK() bool {
	if c.Diagnostics.HasErrors() {
		return false
	}
	for _, l := range c.Lint {
		if l.Err != nil || l.Result.Errors(false) {
			return false
		}
	}
	return true
}

// Check validates and lints the spec at path as `childproof check` does.
// The spec is checked, not launched: an env() of a variable the caller has
// not set counts as set, and a program missing here is no error (the spec
// may be for another machine).
func Check(ctx context.Context, path string) *Checked {
	lookup := func(name string) (string, bool) {
		if v, ok := os.LookupEnv(name); ok {
			return v, true
		}
		return "unset-here", true
	}
	f, files, diags := schema.Load(path, schema.LoadOptions{LookupEnv: lookup, MissingProgramOK: true})
	c := &Checked{Files: files, Diagnostics: diags}
	if diags.HasErrors() {
		return c
	}
	for _, l := range f.Launches {
		res, err := envres.LintLaunch(ctx, l)
		if err != nil {
			res = nil
		}
		c.Lint = append(c.Lint, LaunchLint{Launch: l, Result: res, Err: err})
	}
	return c
}
