package envres

import (
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/childproof/childproof/envres/script"
	"github.com/childproof/childproof/internal/wrapper"
	"github.com/childproof/childproof/schema"
)

// LintLaunch lints a spec's launch as check and run do: its dispatch chain
// (run as bash --noprofile --norc SCRIPT, so the shebang does not apply),
// or its command as if a script exec'd it, with the launch's protected
// variables: the spec's env (a value env() could not know is an unknown
// one) and each required name the launch passes from the caller or its env
// file, which childproof verifies on the worker too. The findings of the wrapper rules the launch's
// forbid_wrappers leaves out are dropped: the spec chose to allow those
// wrappers (contract §4). Findings about the command point at the spec:
// the line of the argument's element in the command attribute (else of the
// attribute), the spec's path made absolute. Other paths are as Lint
// reports them, relative to the launch's dir.
//
// An unparsable script comes back as a wrapped *ParseError.
func LintLaunch(ctx context.Context, l *schema.Launch) (*Result, error) {
	res, err := Lint(ctx, launchConfig(l))
	if err != nil {
		return res, err
	}
	return commandToSpec(allowWrappers(res, l), l), nil
}

// launchConfig is the configuration LintLaunch lints l with: the launch's
// dir, require and aliases; its dispatch script and arguments, or its
// command; the spec's env as overrides (a value env() could not know is
// an unknown one); and every required name the launch passes from the
// caller or its env file (not from env). childproof gives the launch root
// a value for each of those and verifies the worker against it, so the
// chain must keep it: protected, with the env file's value, else an
// unknown one (the caller's, which the spec does not know). A chain that
// re-sources an env file assigning one is an env-file-clobber, as for an
// env override.
func launchConfig(l *schema.Launch) Config {
	cfg := Config{Dir: l.Dir, Require: l.Require, Aliases: l.Aliases}
	if len(l.Dispatch) > 0 {
		cfg.Scripts = l.Dispatch[:1]
		cfg.IgnoreShebang = true // run as bash --noprofile --norc SCRIPT
		cfg.Args = l.Dispatch[1:]
	} else {
		cfg.Argv = lintedArgv(l)
	}
	for _, k := range slices.Sorted(maps.Keys(l.Env)) {
		cfg.Overrides = append(cfg.Overrides, Override{Name: k, Value: l.Env[k], Known: !l.Unknown["env["+k+"]"]})
	}
	cfg.Overrides = append(cfg.Overrides, givenOverrides(l)...)
	return cfg
}

// givenOverrides are the required names l passes from the caller or its
// env file (not from env), as launchConfig says.
func givenOverrides(l *schema.Launch) []Override {
	var file map[string]string
	var out []Override
	for _, n := range slices.Sorted(slices.Values(l.Require)) {
		if _, over := l.Env[n]; over || slices.ContainsFunc(out, func(o Override) bool { return o.Name == n }) {
			continue
		}
		if file == nil {
			file, _ = l.EnvFileVars()
			if file == nil {
				file = map[string]string{}
			}
		}
		if v, ok := file[n]; ok {
			out = append(out, Override{Name: n, Value: v, Known: true})
		} else if l.Inherits(n) {
			out = append(out, Override{Name: n})
		}
	}
	return out
}

// allowWrappers drops the findings of the wrapper rules l's
// forbid_wrappers leaves out.
func allowWrappers(res *Result, l *schema.Launch) *Result {
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

// commandToSpec points the findings about l's command (reported in the
// pseudo-file CommandFile) at the spec: the line of the argument's element
// in the command attribute, or of the attribute. The spec's path becomes
// absolute. CommandFile leaves Files (replaced by the spec when a finding
// moved) and Sources.
func commandToSpec(res *Result, l *schema.Launch) *Result {
	attr := l.Ranges.Command
	if res == nil || attr.Filename == "" {
		return res
	}
	spec, err := filepath.Abs(attr.Filename)
	if err != nil {
		return res
	}
	argv := lintedArgv(l)
	at := func(col int) (int, int) {
		r := attr
		if i := ArgvIndex(argv, col); i >= 0 {
			if er, ok := l.Ranges.Parts[fmt.Sprintf("command[%d]", i)]; ok && er.Filename != "" {
				r = er
			}
		}
		return r.Start.Line, r.Start.Column
	}
	moved := false
	for i := range res.Findings {
		f := &res.Findings[i]
		if f.File != CommandFile {
			continue
		}
		moved = true
		f.File = spec
		f.Line, f.Column = at(f.Column)
		for j := range f.Chain {
			if f.Chain[j].File == CommandFile {
				f.Chain[j] = Pos{File: spec, Line: f.Line}
			}
		}
	}
	files := res.Files[:0:0]
	for _, f := range res.Files {
		if f == CommandFile {
			if !moved {
				continue
			}
			f = spec
		}
		files = append(files, f)
	}
	res.Files = files
	delete(res.Sources, CommandFile)
	return res
}

// lintedArgv is the argv LintLaunch lints for a command launch:
// l.Command, with a bare argv[0] resolved through the launch's PATH
// (its env's PATH, else the caller's; schema.LookPath, as run finds it)
// when the file found is a shell script — a wrapper on PATH, or a
// pyenv, nvm or rbenv shim for python3, node or ruby. The script is then
// followed and linted as ./script would be; anything else stays as it is.
func lintedArgv(l *schema.Launch) []string {
	if len(l.Command) == 0 || strings.ContainsRune(l.Command[0], '/') {
		return l.Command
	}
	path, ok := l.Env["PATH"]
	if !ok {
		path = os.Getenv("PATH")
	}
	p, found := schema.LookPath(l.Command[0], path, l.Dir)
	if !found {
		return l.Command
	}
	f, err := os.Open(p)
	if err != nil {
		return l.Command
	}
	head := make([]byte, 512)
	n, _ := f.Read(head)
	f.Close()
	if !script.ShebangShell(head[:n]) {
		return l.Command
	}
	return append([]string{p}, l.Command[1:]...)
}
