package main

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/childproof/childproof/lintreport"
	"github.com/childproof/childproof/schema"
	"github.com/hashicorp/hcl/v2"
	"github.com/spf13/cobra"
)

// This file holds what every command that takes a SPEC argument shares:
// parsing SPEC[:NAME], the --var flag, loading the spec and reporting its
// diagnostics.

// addVarFlag registers --var K=V (repeatable) on c.
func addVarFlag(c *cobra.Command, vars *[]string) {
	c.Flags().StringArrayVar(vars, "var", nil, "set a spec variable, `K=V` (repeatable; a number stays a number)")
}

// loadedSpec is a loaded spec with its warnings, not yet printed.
type loadedSpec struct {
	file     *schema.File
	arg      schema.SpecArg
	files    map[string]*hcl.File
	warnings hcl.Diagnostics
}

// loadSpec parses arg (SPEC[:NAME]) and loads the spec. Errors are
// reported here: text on stderr, or with --format json a JSON list on
// stdout; they return silentExit(2). Warnings are left to the caller
// (see warn), which knows which launches were selected.
func (a *app) loadSpec(ctx context.Context, arg string, vars []string) (*loadedSpec, error) {
	sa := schema.ParseSpecArg(arg)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	vm, err := varSyntax.parseMap(vars)
	if err != nil {
		return nil, err
	}
	opts := schema.LoadOptions{Vars: vm, LookupEnv: a.lookupEnv, MissingProgramOK: !a.needPrograms, LaunchesNothing: a.launchesNothing, Context: ctx, EnvPlaceholders: a.envPlaceholders}
	if sa.Name != "" {
		// SPEC:NAME reads only NAME and its depends_on strictly: another
		// launch's missing variable does not fail this one.
		opts.Launches = []string{sa.Name}
	}
	f, files, diags := schema.Load(sa.Path, opts)
	varDiagsForCLI(diags)
	if diags.HasErrors() {
		switch a.format {
		case "json":
			_ = lintreport.WriteDiagnosticsJSON(a.stdout, diags)
		case "sarif", "github", "gcc", "checkstyle", "rdjson":
			// check and lint: the spec's problems are results with ranges,
			// so that code scanning and annotations show them.
			_ = lintreport.Write(a.stdout, a.format, nil, lintreport.Options{Diagnostics: lintreport.FromHCL(diags), ToolVersion: lintToolVersion()})
			if a.format == "sarif" {
				a.writeDiagnostics(a.stderr, files, diags)
			}
		default:
			a.writeDiagnostics(a.stderr, files, diags)
		}
		if p, ok := schema.DefaultSpecIn(sa.Path); ok {
			fmt.Fprintf(a.stderr, "childproof: hint: did you mean %s?\n", p)
		}
		return nil, silentExit(exitUsage)
	}
	return &loadedSpec{file: f, arg: sa, files: files, warnings: diags}, nil
}

// varDiagsForCLI words the diagnostics of a variable in --var's terms.
func varDiagsForCLI(diags hcl.Diagnostics) {
	for _, d := range diags {
		if v, ok := hcl.DiagnosticExtra[*schema.VarNeeded](d); ok {
			d.Detail = v.Detail("--var " + v.Name + "=VALUE")
		}
		if v, ok := hcl.DiagnosticExtra[*schema.VarUndeclared](d); ok {
			d.Detail = v.Detail("--var " + v.Name + "=…")
		}
	}
}

// warn prints the spec's warnings that concern the selected launches
// (schema.File.Concerning).
func (a *app) warn(ls *loadedSpec, selected []*schema.Launch) {
	a.specWarnings = ls.file.Concerning(ls.warnings, selected...)
	a.writeDiagnostics(a.stderr, ls.files, a.specWarnings)
}

// loadLaunches loads the spec named by arg and returns the selected launch,
// or every launch when arg names none.
func (a *app) loadLaunches(ctx context.Context, arg string, vars []string) (*schema.File, []*schema.Launch, error) {
	ls, err := a.loadSpec(ctx, arg, vars)
	if err != nil {
		return nil, nil, err
	}
	f := ls.file
	if ls.arg.Name == "" {
		a.warn(ls, f.Launches)
		return f, f.Launches, nil
	}
	l, err := f.Launch(ls.arg.Name)
	if err != nil {
		return nil, nil, exitf(exitUsage, "%v", err)
	}
	a.warn(ls, []*schema.Launch{l})
	return f, []*schema.Launch{l}, nil
}

// loadLaunch loads the spec named by arg and returns exactly one launch:
// the one named, or the only one in the file.
func (a *app) loadLaunch(ctx context.Context, arg string, vars []string) (*schema.File, *schema.Launch, error) {
	ls, err := a.loadSpec(ctx, arg, vars)
	if err != nil {
		return nil, nil, err
	}
	l, err := ls.file.Launch(ls.arg.Name)
	if err != nil {
		var ne *schema.LaunchNameError
		if errors.As(err, &ne) && ne.Name == "" {
			return nil, nil, &exitError{code: exitUsage, err: err, hint: fmt.Sprintf("for example %s:%s", ls.arg.Path, ne.Names[0])}
		}
		return nil, nil, exitf(exitUsage, "%v", err)
	}
	a.warn(ls, []*schema.Launch{l})
	return ls.file, l, nil
}

// writeDiagnostics writes diags as text (lintreport.WriteDiagnostics),
// coloured when w is a terminal that takes colour.
func (a *app) writeDiagnostics(w io.Writer, files map[string]*hcl.File, diags hcl.Diagnostics) {
	lintreport.WriteDiagnostics(w, files, diags, a.color(w))
}
