package progs

import (
	"path/filepath"
	"strings"
	"sync"

	"github.com/childproof/childproof/internal/dotenv"
	"github.com/childproof/childproof/internal/wrapper"
)

// Env-loading wrappers of the worker read an env file into the
// environment of the command they run. Whether the file's values win over
// the caller's depends on the tool:
//
//	dotenv run CMD              python-dotenv: overrides (unless --no-override)
//	python -m dotenv run CMD    the same
//	env-cmd [-f F] CMD          overrides (unless --no-override)
//	dotenv [-e F] [-o] -- CMD   dotenv-cli: only with -o/--override
//	dotenvx run [-f F] [-o] --  only with -o/--overload
//	uv run --env-file F CMD     never (the caller's environment wins)
//	node --env-file=F script    never
//
// internal/wrapper's table (wrapper.ParseLoader) holds each one's
// grammar. A wrapper that does not override is a fill-only load: no
// finding; one that overrides a file that cannot be read here (named or
// its default .env) is an env-file-load whose names are not known.

// Loader is a parsed env-loading wrapper. It is plain data, safe for
// concurrent use while no one changes it.
type Loader struct {
	By       string   // the tool, for messages
	Files    []string // env files, as given ("" when not known statically)
	Override bool
	Dialect  dotenv.Dialect
	Command  int  // the index of the command it runs (node: itself)
	Named    bool // a file was named (else the default file is read)
}

// EnvLoader recognises an env-loading wrapper at args[0] by
// internal/wrapper's table of loaders (wrapper.ParseLoader).
func EnvLoader(args []Arg) (Loader, bool) {
	if len(args) < 2 || !args[0].Known {
		return Loader{}, false
	}
	argv := make([]string, len(args))
	for i, f := range args {
		if f.Known {
			argv[i] = f.S // a word not known statically stays ""
		}
	}
	la, ok := wrapper.ParseLoader(argv)
	if !ok {
		return Loader{}, false
	}
	l := Loader{By: la.Spec.Name, Override: la.Override, Named: la.Named, Dialect: dotenv.Library, Command: la.Command}
	if la.Spec.Prog == "dotenv" && la.Spec.Sub == "run" {
		l.Dialect = dotenv.Python
	}
	for _, f := range la.Files {
		p := f.Path
		if f.Unknown || f.Arg >= 0 && !args[f.Arg].Known {
			p = "" // an rc file's environments, or a path not known: unresolved
		}
		l.Files = append(l.Files, p)
	}
	return l, true
}

// Package runners start a tool by its package name: an env-loading tool
// behind one (uvx --from "python-dotenv[cli]" dotenv run -- CMD, npx
// dotenv-cli -- CMD, poetry run dotenv run CMD) loads as it does on its
// own. runnerValueOpt are their options that take a value.
var runnerValueOpt = sync.OnceValue(func() map[string]map[string]bool {
	return map[string]map[string]bool{
		"uvx":    optSet("--from", "--with", "--with-editable", "--with-requirements", "--python", "-p", "--index", "--index-url", "-i", "--extra-index-url", "--default-index", "--find-links", "-f", "--constraints", "-c", "--overrides", "--build-constraints", "-b", "--env-file", "--directory", "--project", "--cache-dir", "--color", "--config-file"),
		"pipx":   optSet("--spec", "--python", "--pip-args", "--index-url", "-i", "--fetch-python"),
		"npx":    optSet("-p", "--package", "-c", "--call", "--prefix", "-w", "--workspace", "--registry", "--cache"),
		"bunx":   optSet("-p", "--package"),
		"poetry": optSet("-C", "--directory", "-P", "--project"),
		"pnpm":   optSet("-C", "--dir", "--filter", "-F", "--reporter"),
		"uv":     optSet(wrapper.UVValueOptions()...),
	}
})

// runnerTools maps the package names runners are given to the tool they
// start.
var runnerTools = sync.OnceValue(func() map[string]string {
	return map[string]string{
		"dotenv-cli": "dotenv", "@dotenvx/dotenvx": "dotenvx", "python-dotenv": "dotenv", "python-dotenv[cli]": "dotenv",
	}
})

// PackageRunner returns the index of the command a package runner at
// fs[0] starts — uvx, pipx run, npx, bunx, npm exec, poetry run, uv run,
// pnpm exec/dlx, yarn dlx — and the tool its first word names when that
// is a package's name (dotenv-cli → dotenv, else ""), or false when fs[0]
// is none.
func PackageRunner(fs []Arg) (int, string, bool) {
	if len(fs) < 2 || !fs[0].Known {
		return 0, "", false
	}
	arg := func(i int) string { return word(fs, i) }
	prog, i := filepath.Base(fs[0].S), 1
	switch prog {
	case "uvx", "npx", "bunx":
	case "pipx", "poetry", "uv":
		if arg(1) != "run" {
			return 0, "", false
		}
		i = 2
	case "npm":
		if arg(1) != "exec" && arg(1) != "x" {
			return 0, "", false
		}
		prog, i = "npx", 2
	case "pnpm", "yarn":
		if arg(1) != "exec" && arg(1) != "dlx" {
			return 0, "", false
		}
		i = 2
	default:
		return 0, "", false
	}
	values := runnerValueOpt()[prog]
	for i < len(fs) && fs[i].Known && strings.HasPrefix(fs[i].S, "-") {
		o := fs[i].S
		i++
		if o == "--" {
			break
		}
		if !strings.Contains(o, "=") && values[o] {
			i++
		}
	}
	if i >= len(fs) {
		return 0, "", false
	}
	tool := ""
	if t, ok := runnerTools()[fs[i].S]; ok && fs[i].Known {
		tool = t
	}
	return i, tool, true
}
