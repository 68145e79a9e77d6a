package interp

import (
	"bytes"
	"path/filepath"

	"mvdan.cc/sh/v3/syntax"

	"github.com/childproof/childproof/envres/internal/expand"
	"github.com/childproof/childproof/envres/internal/progs"
	"github.com/childproof/childproof/envres/script"
)

// Package-manager run-scripts (npm run NAME, yarn NAME …: progs.RunScript)
// run the command written in package.json's "scripts" under sh -c, as a
// child the package manager waits for. When package.json is readable and
// names the script, that command is analysed as the child, with findings
// at its place in package.json; otherwise the package manager is a
// command that runs and returns.

// pkgScript is a run-script resolved through package.json.
type pkgScript struct {
	file       string // package.json, absolute
	name       string // the script's name
	cmd        string // its command
	line, col  int    // where the command's text starts in package.json
	args       []string
	defaultCmd bool // npm start without a start script: node server.js
}

// pkgScriptOf returns the package.json script fs runs (progs.RunScript),
// and false when fs is no run-script whose package.json is readable and
// names it.
func (a *analyzer) pkgScriptOf(cwd string, fs []expand.Field) (pkgScript, bool) {
	name, args, dirs, ok := progs.RunScript(progArgs(fs))
	if !ok {
		return pkgScript{}, false
	}
	dir := cwd
	for _, d := range dirs {
		dir = expand.JoinPath(dir, d)
	}
	if dir == "" {
		return pkgScript{}, false
	}
	ps, ok := a.readPkgScript(filepath.Join(dir, "package.json"), name)
	if !ok {
		return pkgScript{}, false
	}
	ps.args = args
	return ps, true
}

// readPkgScript reads script name of the package.json at abs, with where
// its command starts; npm start without a start script is node server.js
// (npm-start(1)) when server.js exists.
func (a *analyzer) readPkgScript(abs, name string) (pkgScript, bool) {
	if !a.isFile(abs) {
		return pkgScript{}, false
	}
	src, err := a.readFile(abs)
	if err != nil {
		return pkgScript{}, false
	}
	ps := pkgScript{file: abs, name: name}
	off, cmd, found := progs.ScriptOffset(src, name)
	if !found {
		if name == "start" && a.isFile(filepath.Join(filepath.Dir(abs), "server.js")) {
			ps.cmd, ps.defaultCmd, ps.line, ps.col = "node server.js", true, 1, 1
			return ps, true
		}
		return pkgScript{}, false
	}
	ps.cmd = cmd
	ps.line = 1 + bytes.Count(src[:off], []byte("\n"))
	ps.col = off - bytes.LastIndexByte(src[:off], '\n')
	return ps, true
}

// pkgScriptRun analyses a resolved run-script as the child the package
// manager starts (sh -c CMD ARGS…), in the command's call mode.
func (a *analyzer) pkgScriptRun(c *cmdRun, ps pkgScript) {
	name := a.display(ps.file)
	src, _ := a.readFile(ps.file)
	a.noteFile(name, src)
	cmd := ps.cmd
	for _, w := range ps.args {
		cmd += " " + script.QuoteArgv([]string{w})
	}
	pfc := &fileCtx{name: name, abs: ps.file, embedded: true, line: ps.line, col: ps.col, lang: syntax.LangPOSIX}
	f, err := a.parser.Parse(name, []byte(cmd), syntax.LangPOSIX)
	if err != nil {
		// /bin/sh is bash on some systems: try it before giving up.
		if bf, berr := a.parser.Parse(name, []byte(cmd), syntax.LangBash); berr == nil {
			f, err = bf, nil
			pfc.lang = syntax.LangBash
		}
	}
	if err != nil {
		msg := "the package.json script " + ps.name + " does not parse"
		if pe, ok := err.(*ParseError); ok {
			msg += ": " + pe.Msg
		}
		a.uncheckedAt(a.siteAt(c.st, pfc, syntax.NewPos(0, 1, 1)), msg)
		a.external(c.st, c.cst, c.fc, c.fs, c.mode, c.nohup)
		return
	}
	a.runChild(c.st, c.cst, c.fc, c.fs[0].Pos, "", "", &childSrc{file: f, fc: pfc}, nil, c.mode, c.nohup, false)
	if c.mode == callNormal && progs.ScriptReturns(ps.name) && c.st.lastCmd != nil {
		c.st.lastCmd.returns = true // npm test, npm run build: a step, not the worker
	}
	a.fixLaunch(c.st, c.startSite)
}
