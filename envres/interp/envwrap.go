package interp

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

// envLoader is a parsed env-loading wrapper.
type envLoader struct {
	by       string   // the tool, for messages
	files    []string // env files, as given ("" when not known statically)
	override bool
	dialect  dotenv.Dialect
	rest     []field // the command it runs (node: itself)
	named    bool    // a file was named (else the default file is read)
}

// parseEnvLoader recognises an env-loading wrapper at fs[0] by
// internal/wrapper's table of loaders (wrapper.ParseLoader).
func parseEnvLoader(fs []field) (envLoader, bool) {
	if len(fs) < 2 || !fs[0].Known {
		return envLoader{}, false
	}
	argv := make([]string, len(fs))
	for i, f := range fs {
		if f.Known {
			argv[i] = f.Str // a word not known statically stays ""
		}
	}
	la, ok := wrapper.ParseLoader(argv)
	if !ok {
		return envLoader{}, false
	}
	l := envLoader{by: la.Spec.Name, override: la.Override, named: la.Named, dialect: dotenv.Library, rest: fs[la.Command:]}
	if la.Spec.Prog == "dotenv" && la.Spec.Sub == "run" {
		l.dialect = dotenv.Python
	}
	for _, f := range la.Files {
		p := f.Path
		if f.Unknown || f.Arg >= 0 && !fs[f.Arg].Known {
			p = "" // an rc file's environments, or a path not known: unresolved
		}
		l.files = append(l.files, p)
	}
	return l, true
}

func optSet(opts ...string) map[string]bool {
	m := make(map[string]bool, len(opts))
	for _, o := range opts {
		m[o] = true
	}
	return m
}

// envLoaderLoad applies the wrapper's env files to the command's state.
func (a *analyzer) envLoaderLoad(st, cst *state, fc *fileCtx, fs []field, l envLoader) {
	s := a.siteAt(st, fc, fs[0].Pos)
	o := loadOpts{exportAll: true, dialect: l.dialect, by: l.by}
	if !l.override {
		o.fill = fillUnset
	}
	for _, f := range l.files {
		abs := joinPath(cst.Cwd, f)
		switch {
		case abs != "" && a.isFile(abs):
			a.dotenvLoad(cst, s, abs, o)
		case l.override:
			// Not known, or not readable here (a gitignored .env, named
			// or the loader's default): its names are not known.
			a.pendLoad(cst, s, f, abs != "")
		}
	}
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

// packageRunner returns the command a package runner at fs[0] starts —
// uvx, pipx run, npx, bunx, npm exec, poetry run, uv run, pnpm exec/dlx,
// yarn dlx — with the tool named by its command (dotenv-cli → dotenv), or
// false when fs[0] is none.
func packageRunner(fs []field) ([]field, bool) {
	if len(fs) < 2 || !fs[0].Known {
		return nil, false
	}
	arg := func(i int) string {
		if i < len(fs) && fs[i].Known {
			return fs[i].Str
		}
		return ""
	}
	prog, i := filepath.Base(fs[0].Str), 1
	switch prog {
	case "uvx", "npx", "bunx":
	case "pipx", "poetry", "uv":
		if arg(1) != "run" {
			return nil, false
		}
		i = 2
	case "npm":
		if arg(1) != "exec" && arg(1) != "x" {
			return nil, false
		}
		prog, i = "npx", 2
	case "pnpm", "yarn":
		if arg(1) != "exec" && arg(1) != "dlx" {
			return nil, false
		}
		i = 2
	default:
		return nil, false
	}
	values := runnerValueOpt()[prog]
	for i < len(fs) && fs[i].Known && strings.HasPrefix(fs[i].Str, "-") {
		o := fs[i].Str
		i++
		if o == "--" {
			break
		}
		if !strings.Contains(o, "=") && values[o] {
			i++
		}
	}
	if i >= len(fs) {
		return nil, false
	}
	rest := append([]field(nil), fs[i:]...)
	if t, ok := runnerTools()[rest[0].Str]; ok && rest[0].Known {
		rest[0].Str = t
	}
	return rest, true
}
