package interp

import (
	"github.com/childproof/childproof/envres/internal/expand"
	"github.com/childproof/childproof/envres/internal/progs"
)

// Env-loading wrappers of the worker (dotenv run CMD, env-cmd, uv run
// --env-file …: progs.EnvLoader) read an env file into the environment of
// the command they run; package runners (uvx, npx …: progs.PackageRunner)
// start a tool by its package name.

// envLoader is a parsed env-loading wrapper (progs.EnvLoader), with the
// command it runs (node: itself).
type envLoader struct {
	progs.Loader
	rest []expand.Field
}

// parseEnvLoader recognises an env-loading wrapper at fs[0].
func parseEnvLoader(fs []expand.Field) (envLoader, bool) {
	l, ok := progs.EnvLoader(progArgs(fs))
	if !ok {
		return envLoader{}, false
	}
	return envLoader{Loader: l, rest: fs[l.Command:]}, true
}

// envLoaderLoad applies the wrapper's env files to the command's state.
func (a *analyzer) envLoaderLoad(st, cst *state, fc *fileCtx, fs []expand.Field, l envLoader) {
	s := a.siteAt(st, fc, fs[0].Pos)
	o := loadOpts{exportAll: true, dialect: l.Dialect, by: l.By}
	if !l.Override {
		o.fill = fillUnset
	}
	for _, f := range l.Files {
		abs := expand.JoinPath(cst.Cwd, f)
		switch {
		case abs != "" && a.isFile(abs):
			a.dotenvLoad(cst, s, abs, o)
		case l.Override:
			// Not known, or not readable here (a gitignored .env, named
			// or the loader's default): its names are not known.
			a.pendLoad(cst, s, f, abs != "")
		}
	}
}
