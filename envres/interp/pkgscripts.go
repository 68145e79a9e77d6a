package interp

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// Package-manager run-scripts: npm run NAME, npm start, yarn NAME, pnpm
// NAME, bun run NAME run the command written in package.json's "scripts"
// under sh -c (npm-run-script(1): script-shell defaults to /bin/sh), as a
// child the package manager waits for. When package.json is readable and
// names the script, that command is analysed as the child — it is the
// worker, or starts it — with findings at its place in package.json;
// otherwise the package manager is a command that runs and returns.

// pkgScript is a run-script resolved through package.json.
type pkgScript struct {
	file       string // package.json, absolute
	name       string // the script's name
	cmd        string // its command
	line, col  int    // where the command's text starts in package.json
	args       []string
	defaultCmd bool // npm start without a start script: node server.js
}

// npmAliases are npm's commands that run a script of the same name
// (npm start, npm test, npm restart, npm stop) and run-script's aliases.
var npmAliases = map[string]string{
	"start": "start", "test": "test", "t": "test", "tst": "test", "restart": "restart", "stop": "stop",
}

// pkgManagerOpts are the package managers' global options that take a
// value (the one that moves the project directory is handled apart).
var pkgManagerOpts = map[string]bool{
	"-w": true, "--workspace": true, "--filter": true, "-F": true, "--loglevel": true, "--reporter": true,
	"--script-shell": true, "--registry": true, "--cache": true, "--userconfig": true,
}

// pkgScriptOf returns the package.json script fs runs, and false when fs
// is no run-script whose package.json is readable and names it.
func (a *analyzer) pkgScriptOf(cwd string, fs []field) (pkgScript, bool) {
	if len(fs) < 2 || !fs[0].Known {
		return pkgScript{}, false
	}
	prog := filepath.Base(fs[0].Str)
	dir := cwd
	var words []string
	for i := 1; i < len(fs); i++ {
		if !fs[i].Known {
			if len(words) == 0 {
				return pkgScript{}, false // the command itself is not known
			}
			break // an argument not known statically: the script still runs
		}
		w := fs[i].Str
		switch {
		case len(words) == 0 && (w == "--prefix" || w == "--cwd" || w == "--dir" || w == "-C"):
			if i+1 >= len(fs) || !fs[i+1].Known {
				return pkgScript{}, false
			}
			dir = joinPath(dir, fs[i+1].Str)
			i++
			continue
		case len(words) == 0 && (strings.HasPrefix(w, "--prefix=") || strings.HasPrefix(w, "--cwd=") || strings.HasPrefix(w, "--dir=")):
			dir = joinPath(dir, w[strings.IndexByte(w, '=')+1:])
			continue
		case len(words) == 0 && strings.HasPrefix(w, "-"):
			if !strings.Contains(w, "=") && pkgManagerOpts[w] {
				i++
			}
			continue
		}
		words = append(words, w)
	}
	if len(words) == 0 || dir == "" {
		return pkgScript{}, false
	}
	var name string
	args := words[1:]
	switch prog {
	case "npm":
		switch {
		case words[0] == "run" || words[0] == "run-script" || words[0] == "rum" || words[0] == "urn":
			if len(words) < 2 {
				return pkgScript{}, false
			}
			name, args = words[1], words[2:]
		case npmAliases[words[0]] != "":
			name = npmAliases[words[0]]
		default:
			return pkgScript{}, false
		}
		// npm passes the arguments after "--" to the script.
		if k := indexOf(args, "--"); k >= 0 {
			args = args[k+1:]
		} else {
			args = nil
		}
	case "yarn", "pnpm", "bun":
		name = words[0]
		if words[0] == "run" {
			if len(words) < 2 {
				return pkgScript{}, false
			}
			name, args = words[1], words[2:]
		}
		if len(args) > 0 && args[0] == "--" {
			args = args[1:]
		}
	default:
		return pkgScript{}, false
	}
	ps, ok := a.readPkgScript(filepath.Join(dir, "package.json"), name)
	if !ok {
		return pkgScript{}, false
	}
	ps.args = args
	return ps, true
}

func indexOf(s []string, w string) int {
	for i, x := range s {
		if x == w {
			return i
		}
	}
	return -1
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
	off, cmd, found := scriptOffset(src, name)
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

// scriptOffset finds "scripts": {name: "CMD"} in a package.json: the byte
// offset of CMD's first character inside its quotes, and CMD.
func scriptOffset(src []byte, name string) (int, string, bool) {
	dec := json.NewDecoder(bytes.NewReader(src))
	if !enterObject(dec) {
		return 0, "", false
	}
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			return 0, "", false
		}
		if k != "scripts" {
			var skip json.RawMessage
			if dec.Decode(&skip) != nil {
				return 0, "", false
			}
			continue
		}
		if !enterObject(dec) {
			return 0, "", false
		}
		for dec.More() {
			k, err := dec.Token()
			if err != nil {
				return 0, "", false
			}
			after := int(dec.InputOffset())
			var raw json.RawMessage
			if dec.Decode(&raw) != nil {
				return 0, "", false
			}
			var cmd string
			if k != name || json.Unmarshal(raw, &cmd) != nil {
				continue // another script, or a value that is no command
			}
			q := bytes.IndexByte(src[after:], '"')
			if q < 0 {
				return 0, "", false
			}
			return after + q + 1, cmd, true
		}
		return 0, "", false
	}
	return 0, "", false
}

// enterObject reads the '{' that starts a JSON object.
func enterObject(dec *json.Decoder) bool {
	t, err := dec.Token()
	return err == nil && t == json.Delim('{')
}

// pkgScriptRun analyses a resolved run-script as the child the package
// manager starts (sh -c CMD ARGS…), in the command's call mode.
func (a *analyzer) pkgScriptRun(c *cmdRun, ps pkgScript) {
	name := a.display(ps.file)
	src, _ := a.readFile(ps.file)
	a.noteFile(name, src)
	cmd := ps.cmd
	for _, w := range ps.args {
		cmd += " " + quoteArgv([]string{w})
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
	if c.mode == callNormal && pkgReturning[ps.name] && c.st.lastCmd != nil {
		c.st.lastCmd.returns = true // npm test, npm run build: a step, not the worker
	}
	a.fixLaunch(c.st, c.startSite)
}

// pkgReturning are the script names that by convention run a step and
// return (npm's test lifecycle, builds, linters, code generation): run in
// the foreground as a script's last command, they are not its worker.
var pkgReturning = map[string]bool{
	"test": true, "build": true, "lint": true, "format": true, "fmt": true, "typecheck": true, "type-check": true,
	"check": true, "clean": true, "install": true, "prepare": true, "ci": true, "compile": true, "generate": true,
	"codegen": true, "migrate": true, "stop": true,
}
