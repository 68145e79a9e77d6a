package main

import (
	"io"
	"path/filepath"

	"github.com/childproof/childproof/envres"
	"github.com/childproof/childproof/lintreport"
)

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
		chain := make([]envres.Pos, len(f.Chain))
		for j, c := range f.Chain {
			chain[j] = envres.Pos{File: fix(c.File), Line: c.Line}
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

// writeLint writes a lint result in format (lintreport), paths
// relative to the current directory.
func (a *app) writeLint(w io.Writer, format string, res *envres.Result) error {
	return a.writeLintDir(w, format, res, "")
}

// writeLintDir writes a lint result whose relative paths are relative to dir.
func (a *app) writeLintDir(w io.Writer, format string, res *envres.Result, dir string) error {
	return lintreport.Write(w, format, res, lintreport.Options{Color: a.color(w), Dir: dir, ToolVersion: lintToolVersion()})
}
