package main

import (
	"io"

	"github.com/childproof/childproof/envres"
	"github.com/childproof/childproof/lintreport"
)

// writeLint writes a lint result in format (lintreport), paths
// relative to the current directory.
func (a *app) writeLint(w io.Writer, format string, res *envres.Result) error {
	return a.writeLintDir(w, format, res, "")
}

// writeLintDir writes a lint result whose relative paths are relative to dir.
func (a *app) writeLintDir(w io.Writer, format string, res *envres.Result, dir string) error {
	return lintreport.Write(w, format, res, lintreport.Options{Color: a.color(w), Dir: dir, ToolVersion: lintToolVersion()})
}
