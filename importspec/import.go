package importspec

import (
	"context"
	"fmt"
	"os"

	"github.com/hashicorp/hcl/v2"

	"github.com/childproof/childproof/envres"
	"github.com/childproof/childproof/schema"
)

// Import reads the launch script (and every script it sources or execs)
// with envres's analysis, nothing runs, and writes the spec that starts
// the same worker without the script (Build). args are the script's
// positional parameters. opt.Script is set to script; a nil
// opt.DefaultInherit is schema.DefaultInherit. A script that cannot be read
// or parsed is a wrapped *envres.ParseError; an opt.Name that is no launch
// name (schema.IsLaunchName) is an error too.
func Import(ctx context.Context, script string, args []string, opt Options) (*Spec, error) {
	if opt.Name != "" && !schema.IsLaunchName(opt.Name) {
		return nil, fmt.Errorf("%q is not a launch name (letters, digits, '_', '.', '-'; at most 64)", opt.Name)
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

// Checked is what check says of a spec Import wrote, once it is written.
type Checked struct {
	// Files are the spec's parsed files, for the diagnostics' source lines.
	Files map[string]*hcl.File
	// Diagnostics are the spec's load diagnostics. With an error among
	// them no launch is linted (Lint is nil).
	Diagnostics hcl.Diagnostics
	// Lint holds each launch's lint, in the spec's order.
	Lint []LaunchLint
}

// LaunchLint is one launch's lint (envres.LintLaunch).
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
