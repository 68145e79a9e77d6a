package main

import (
	"context"
	"fmt"
	"io"
	"maps"
	"path/filepath"
	"slices"

	"github.com/childproof/childproof/envres"
	"github.com/childproof/childproof/internal/wrapper"
	"github.com/childproof/childproof/lintreport"
	"github.com/childproof/childproof/schema"
)

// lintLaunch lints a launch's dispatch chain (or its command, as if a
// script exec'd it) with the launch's protected variables. An unparsable
// script comes back as a wrapped *envres.ParseError.
func (a *app) lintLaunch(ctx context.Context, l *schema.Launch) (*envres.Result, error) {
	cfg := lintConfig(l)
	res, err := envres.Lint(ctx, cfg)
	if err == nil {
		res = commandToSpec(allowWrappers(res, l), l)
	}
	return res, err
}

// allowWrappers drops the findings of the wrapper rules the launch's
// forbid_wrappers leaves out: the spec chose to allow those wrappers
// (contract §4), so they are no error of check or run.
func allowWrappers(res *envres.Result, l *schema.Launch) *envres.Result {
	if res == nil {
		return res
	}
	forbid := l.EffectiveForbidWrappers()
	kept := res.Findings[:0]
	for _, f := range res.Findings {
		if wrapper.IsRule(f.Rule) && !slices.Contains(forbid, f.Rule) {
			continue
		}
		kept = append(kept, f)
	}
	res.Findings = kept
	return res
}

// commandToSpec points the findings about a launch's command (reported in
// the pseudo-file envres.CommandFile) at the spec: the line of the
// argument's element in the command attribute, or of the attribute. The
// spec's path becomes absolute, relativeTo makes it relative again.
func commandToSpec(res *envres.Result, l *schema.Launch) *envres.Result {
	attr := l.Ranges.Command
	if res == nil || attr.Filename == "" {
		return res
	}
	spec, err := filepath.Abs(attr.Filename)
	if err != nil {
		return res
	}
	at := func(col int) (int, int) {
		r := attr
		if i := envres.ArgvIndex(l.Command, col); i >= 0 {
			if er, ok := l.Ranges.Parts[fmt.Sprintf("command[%d]", i)]; ok && er.Filename != "" {
				r = er
			}
		}
		return r.Start.Line, r.Start.Column
	}
	moved := false
	for i := range res.Findings {
		f := &res.Findings[i]
		if f.File != envres.CommandFile {
			continue
		}
		moved = true
		f.File = spec
		f.Line, f.Column = at(f.Column)
		for j := range f.Chain {
			if f.Chain[j].File == envres.CommandFile {
				f.Chain[j] = envres.ChainLink{File: spec, Line: f.Line}
			}
		}
	}
	files := res.Files[:0:0]
	for _, f := range res.Files {
		if f == envres.CommandFile {
			if !moved {
				continue
			}
			f = spec
		}
		files = append(files, f)
	}
	res.Files = files
	delete(res.Sources, envres.CommandFile)
	return res
}

// lintConfig is the envres configuration for a launch.
func lintConfig(l *schema.Launch) envres.Config {
	cfg := envres.Config{Dir: l.Dir, Require: l.Require, Aliases: l.Aliases}
	if len(l.Dispatch) > 0 {
		cfg.Scripts = l.Dispatch[:1]
		cfg.IgnoreShebang = true // run as bash --noprofile --norc SCRIPT
		cfg.Args = l.Dispatch[1:]
	} else {
		cfg.Argv = l.Command
	}
	for _, k := range slices.Sorted(maps.Keys(l.Env)) {
		cfg.Overrides = append(cfg.Overrides, envres.Override{Name: k, Value: l.Env[k], Known: !l.Unknown["env["+k+"]"]})
	}
	cfg.Overrides = append(cfg.Overrides, givenOverrides(l)...)
	return cfg
}

// givenOverrides are the required names the launch passes from the caller
// or its env file (not from env): childproof gives the launch root a value
// for each and verifies the worker against it, so the chain must keep it —
// protected, with the env file's value, else an unknown one (the caller's,
// which the spec does not know). A chain that re-sources an env file
// assigning one is an env-file-clobber, as for an env override.
func givenOverrides(l *schema.Launch) []envres.Override {
	var file map[string]string
	var out []envres.Override
	for _, n := range slices.Sorted(slices.Values(l.Require)) {
		if _, over := l.Env[n]; over || slices.ContainsFunc(out, func(o envres.Override) bool { return o.Name == n }) {
			continue
		}
		if file == nil {
			file, _ = l.EnvFileVars()
			if file == nil {
				file = map[string]string{}
			}
		}
		if v, ok := file[n]; ok {
			out = append(out, envres.Override{Name: n, Value: v, Known: true})
		} else if l.Inherits(n) {
			out = append(out, envres.Override{Name: n})
		}
	}
	return out
}

// relativeTo rewrites a launch's lint result so that its paths, relative
// to the launch's dir, are relative to the current directory (absolute when
// outside it), as the spec path the user typed is. envres.CommandFile stays.
func relativeTo(res *envres.Result, dir string) *envres.Result {
	if res == nil || dir == "" {
		return res
	}
	fix := func(p string) string {
		if p == "" || p == envres.CommandFile {
			return p
		}
		if filepath.IsAbs(p) {
			return displayPath(p, false)
		}
		return displayPath(filepath.Join(dir, p), false)
	}
	out := &envres.Result{Findings: make([]envres.Finding, len(res.Findings)), Files: make([]string, len(res.Files))}
	for i, f := range res.Files {
		out.Files[i] = fix(f)
	}
	for i, f := range res.Findings {
		f.File = fix(f.File)
		chain := make([]envres.ChainLink, len(f.Chain))
		for j, c := range f.Chain {
			chain[j] = envres.ChainLink{File: fix(c.File), Line: c.Line}
		}
		if f.Chain == nil {
			chain = nil
		}
		f.Chain = chain
		out.Findings[i] = f
	}
	if res.Sources != nil {
		out.Sources = map[string][]byte{}
		for k, v := range res.Sources {
			out.Sources[fix(k)] = v
		}
	}
	return out
}

// mergeResults joins several launches' lint results into one, without
// duplicate findings or files, findings sorted by file, line, column, rule.
func mergeResults(results []*envres.Result) *envres.Result {
	out := &envres.Result{Findings: []envres.Finding{}, Files: []string{}}
	seenFile := map[string]bool{}
	seenFinding := map[string]bool{}
	for _, r := range results {
		if r == nil {
			continue
		}
		for _, f := range r.Files {
			if !seenFile[f] {
				seenFile[f] = true
				out.Files = append(out.Files, f)
			}
		}
		for k, v := range r.Sources {
			if out.Sources == nil {
				out.Sources = map[string][]byte{}
			}
			if _, ok := out.Sources[k]; !ok {
				out.Sources[k] = v
			}
		}
		for _, f := range r.Findings {
			key := fmt.Sprintf("%s\x00%d\x00%d\x00%s\x00%s", f.File, f.Line, f.Column, f.Rule, f.Message)
			if !seenFinding[key] {
				seenFinding[key] = true
				out.Findings = append(out.Findings, f)
			}
		}
	}
	envres.SortFindings(out.Findings)
	return out
}

// countSeverities counts error and warning findings.
func countSeverities(res *envres.Result) (errs, warns int) {
	if res == nil {
		return 0, 0
	}
	for _, f := range res.Findings {
		switch f.Severity {
		case "error":
			errs++
		case "warning":
			warns++
		}
	}
	return errs, warns
}

// writeLint writes a lint result in format (lintreport), paths
// relative to the current directory.
func (a *app) writeLint(w io.Writer, format string, res *envres.Result) error {
	return a.writeLintDir(w, format, res, "")
}

// writeLintDir writes a lint result whose relative paths are relative to dir.
func (a *app) writeLintDir(w io.Writer, format string, res *envres.Result, dir string) error {
	return lintreport.Write(w, format, res, lintreport.Options{Color: a.color(w), Dir: dir, ToolVersion: lintToolVersion()})
}
