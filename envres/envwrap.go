package envres

import (
	"path/filepath"
	"strings"
	"sync"

	"github.com/childproof/childproof/internal/dotenv"
)

// Env-loading wrappers of the worker read an env file into the
// environment of the command they run. Whether the file's values win over
// the caller's depends on the tool:
//
//	dotenv run CMD              python-dotenv: overrides (unless --no-override)
//	dotenv [-e F] [-o] -- CMD   dotenv-cli: only with -o/--override
//	dotenvx run [-f F] [-o] --  only with -o/--overload
//	uv run --env-file F CMD     never (the caller's environment wins)
//	node --env-file=F script    never
//
// A wrapper that does not override is a fill-only load: no finding.

// envLoader is a parsed env-loading wrapper.
type envLoader struct {
	by       string   // the tool, for messages
	files    []string // env files, as given
	override bool
	dialect  dotenv.Dialect
	rest     []field // the command it runs (node: itself)
	named    bool    // a file was named (a missing default file is no finding)
}

// parseEnvLoader recognises an env-loading wrapper at fs[0].
func parseEnvLoader(fs []field) (envLoader, bool) {
	if len(fs) < 2 || !fs[0].known {
		return envLoader{}, false
	}
	arg := func(i int) string {
		if i < len(fs) && fs[i].known {
			return fs[i].s
		}
		return ""
	}
	switch base := filepath.Base(fs[0].s); base {
	case "dotenv":
		// python-dotenv has a "run" subcommand; dotenv-cli does not.
		for i := 1; i < len(fs) && strings.HasPrefix(arg(i), "-") || arg(i) == "run"; i++ {
			if arg(i) == "run" {
				return parsePythonDotenv(fs, arg)
			}
			switch arg(i) {
			case "-f", "--file", "-q", "--quote", "-e", "--export":
				i++
			}
		}
		return loaderOpts(fs, 1, envLoader{by: "dotenv-cli", dialect: dotenv.Library},
			optSet("-e"), optSet("-o", "--override"), optSet("-v", "-p", "-c"))
	case "dotenvx":
		if arg(1) != "run" {
			return envLoader{}, false
		}
		return loaderOpts(fs, 2, envLoader{by: "dotenvx run", dialect: dotenv.Library},
			optSet("-f", "--env-file"), optSet("-o", "--overload", "--override"), optSet("--env", "--convention", "-fk", "--env-keys-file"))
	case "uv":
		if arg(1) != "run" {
			return envLoader{}, false
		}
		l := envLoader{by: "uv run --env-file", dialect: dotenv.Library}
		for i := 2; i < len(fs); i++ {
			o := arg(i)
			switch {
			case o == "--":
				l.rest = fs[i+1:]
				return l, len(l.files) > 0
			case o == "--env-file":
				l.files = append(l.files, arg(i+1))
				i++
			case strings.HasPrefix(o, "--env-file="):
				l.files = append(l.files, strings.TrimPrefix(o, "--env-file="))
			case uvValueOpt()[o]:
				i++
			case strings.HasPrefix(o, "-"):
			default:
				l.rest = fs[i:]
				return l, len(l.files) > 0
			}
		}
	case "node", "nodejs":
		l := envLoader{by: "node --env-file", dialect: dotenv.Library, rest: fs}
		for i := 1; i < len(fs); i++ {
			o := arg(i)
			switch {
			case o == "--env-file" || o == "--env-file-if-exists":
				l.files = append(l.files, arg(i+1))
				i++
			case strings.HasPrefix(o, "--env-file="):
				l.files = append(l.files, strings.TrimPrefix(o, "--env-file="))
			case strings.HasPrefix(o, "--env-file-if-exists="):
				l.files = append(l.files, strings.TrimPrefix(o, "--env-file-if-exists="))
			case !strings.HasPrefix(o, "-"):
				return l, len(l.files) > 0 // the script: its own arguments follow
			}
		}
		return l, len(l.files) > 0
	}
	return envLoader{}, false
}

func optSet(opts ...string) map[string]bool {
	m := make(map[string]bool, len(opts))
	for _, o := range opts {
		m[o] = true
	}
	return m
}

// loaderOpts reads the options of dotenv-cli and dotenvx from fs[i:]: the
// files (default .env), whether they override, options that take a value;
// the command follows "--" or the first operand.
func loaderOpts(fs []field, i int, l envLoader, file, override, withValue map[string]bool) (envLoader, bool) {
	for ; i < len(fs); i++ {
		o := ""
		if fs[i].known {
			o = fs[i].s
		}
		switch {
		case o == "--":
			l.rest = fs[i+1:]
			return l.withDefault(".env"), true
		case file[o]:
			f := "" // a path not known statically: an unresolved load
			if i+1 < len(fs) && fs[i+1].known {
				f = fs[i+1].s
			}
			l.files = append(l.files, f)
			l.named = true
			i++
		case override[o]:
			l.override = true
		case withValue[o]:
			i++
		case strings.HasPrefix(o, "-"):
		default:
			l.rest = fs[i:]
			return l.withDefault(".env"), true
		}
	}
	return envLoader{}, false
}

// uvValueOpt are uv run's options that take a value.
var uvValueOpt = sync.OnceValue(func() map[string]bool {
	return map[string]bool{
		"--with": true, "-w": true, "--with-editable": true, "--with-requirements": true, "-p": true, "--python": true,
		"--project": true, "--directory": true, "--package": true, "--extra": true, "--group": true, "--only-group": true,
		"--no-group": true, "--index": true, "--default-index": true, "-i": true, "--index-url": true,
		"--extra-index-url": true, "-f": true, "--find-links": true, "--cache-dir": true, "--config-file": true,
		"--python-platform": true, "--no-extra": true, "--index-strategy": true, "--keyring-provider": true,
		"--resolution": true, "--prerelease": true, "--exclude-newer": true, "--link-mode": true, "--refresh-package": true,
		"--reinstall-package": true, "--upgrade-package": true, "-P": true, "-C": true, "--config-setting": true,
	}
})

// parsePythonDotenv is python-dotenv's CLI: dotenv [-f F] run [--no-override] CMD.
func parsePythonDotenv(fs []field, arg func(int) string) (envLoader, bool) {
	l := envLoader{by: "dotenv run", override: true, dialect: dotenv.Python}
	i := 1
	for ; i < len(fs) && arg(i) != "run"; i++ {
		if arg(i) == "-f" || arg(i) == "--file" {
			l.files = append(l.files, arg(i+1))
			l.named = true
			i++
		} else if arg(i) == "-q" || arg(i) == "--quote" || arg(i) == "-e" || arg(i) == "--export" {
			i++
		}
	}
	for i++; i < len(fs); i++ {
		switch o := arg(i); {
		case o == "--override":
			l.override = true
		case o == "--no-override":
			l.override = false
		case o == "--":
			l.rest = fs[i+1:]
			return l.withDefault(".env"), true
		case strings.HasPrefix(o, "-"):
		default:
			l.rest = fs[i:]
			return l.withDefault(".env"), true
		}
	}
	return envLoader{}, false
}

func (l envLoader) withDefault(f string) envLoader {
	if len(l.files) == 0 {
		l.files = []string{f}
	}
	return l
}

// envLoaderLoad applies the wrapper's env files to the command's state.
func (a *analyzer) envLoaderLoad(st, cst *state, fc *fileCtx, fs []field, l envLoader) {
	s := a.siteAt(st, fc, fs[0].pos)
	o := loadOpts{exportAll: true, dialect: l.dialect, by: l.by}
	if !l.override {
		o.fill = fillUnset
	}
	for _, f := range l.files {
		abs := joinPath(cst.cwd, f)
		switch {
		case abs != "" && a.isFile(abs):
			a.dotenvLoad(cst, s, abs, o)
		case l.override && (l.named || abs == ""):
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
		"uv":     uvValueOpt(),
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
	if len(fs) < 2 || !fs[0].known {
		return nil, false
	}
	arg := func(i int) string {
		if i < len(fs) && fs[i].known {
			return fs[i].s
		}
		return ""
	}
	prog, i := filepath.Base(fs[0].s), 1
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
	for i < len(fs) && fs[i].known && strings.HasPrefix(fs[i].s, "-") {
		o := fs[i].s
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
	if t, ok := runnerTools()[rest[0].s]; ok && rest[0].known {
		rest[0].s = t
	}
	return rest, true
}
