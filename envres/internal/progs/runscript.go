package progs

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"
)

// Package-manager run-scripts: npm run NAME, npm start, yarn NAME, pnpm
// NAME, bun run NAME run the command written in package.json's "scripts"
// under sh -c (npm-run-script(1): script-shell defaults to /bin/sh), as a
// child the package manager waits for. When package.json is readable and
// names the script, that command is analysed as the child — it is the
// worker, or starts it — with findings at its place in package.json;
// otherwise the package manager is a command that runs and returns.

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

// RunScript returns the package.json script a package manager's command
// line runs (npm run NAME, npm start, yarn NAME, pnpm NAME, bun run NAME),
// the arguments it passes to it and the directories its project options
// (--prefix, --cwd, --dir, -C) move to, in order; false when fs is no
// run-script.
func RunScript(fs []Arg) (name string, args, dirs []string, ok bool) {
	if len(fs) < 2 || !fs[0].Known {
		return "", nil, nil, false
	}
	prog := filepath.Base(fs[0].S)
	var words []string
	for i := 1; i < len(fs); i++ {
		if !fs[i].Known {
			if len(words) == 0 {
				return "", nil, nil, false // the command itself is not known
			}
			break // an argument not known statically: the script still runs
		}
		w := fs[i].S
		switch {
		case len(words) == 0 && (w == "--prefix" || w == "--cwd" || w == "--dir" || w == "-C"):
			if i+1 >= len(fs) || !fs[i+1].Known {
				return "", nil, nil, false
			}
			dirs = append(dirs, fs[i+1].S)
			i++
			continue
		case len(words) == 0 && (strings.HasPrefix(w, "--prefix=") || strings.HasPrefix(w, "--cwd=") || strings.HasPrefix(w, "--dir=")):
			dirs = append(dirs, w[strings.IndexByte(w, '=')+1:])
			continue
		case len(words) == 0 && strings.HasPrefix(w, "-"):
			if !strings.Contains(w, "=") && pkgManagerOpts[w] {
				i++
			}
			continue
		}
		words = append(words, w)
	}
	if len(words) == 0 {
		return "", nil, nil, false
	}
	args = words[1:]
	switch prog {
	case "npm":
		switch {
		case words[0] == "run" || words[0] == "run-script" || words[0] == "rum" || words[0] == "urn":
			if len(words) < 2 {
				return "", nil, nil, false
			}
			name, args = words[1], words[2:]
		case npmAliases[words[0]] != "":
			name = npmAliases[words[0]]
		default:
			return "", nil, nil, false
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
				return "", nil, nil, false
			}
			name, args = words[1], words[2:]
		}
		if len(args) > 0 && args[0] == "--" {
			args = args[1:]
		}
	default:
		return "", nil, nil, false
	}
	return name, args, dirs, true
}

func indexOf(s []string, w string) int {
	for i, x := range s {
		if x == w {
			return i
		}
	}
	return -1
}

// ScriptOffset finds "scripts": {name: "CMD"} in a package.json: the byte
// offset of CMD's first character inside its quotes, and CMD.
func ScriptOffset(src []byte, name string) (int, string, bool) {
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

// ScriptReturns reports whether a package.json script of that name by
// convention runs a step and returns (npm's test lifecycle, builds,
// linters, code generation): run in the foreground as a script's last
// command, it is not its worker.
func ScriptReturns(name string) bool { return scriptReturning[name] }

// scriptReturning are the script names ScriptReturns reports.
var scriptReturning = map[string]bool{
	"test": true, "build": true, "lint": true, "format": true, "fmt": true, "typecheck": true, "type-check": true,
	"check": true, "clean": true, "install": true, "prepare": true, "ci": true, "compile": true, "generate": true,
	"codegen": true, "migrate": true, "stop": true,
}
