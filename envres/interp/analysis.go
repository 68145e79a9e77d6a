package interp

import (
	"context"

	"github.com/childproof/childproof/envres/internal/resolve"
)

// Analysis is what one walk of a Config's scripts found. Its fields are
// plain data; it is safe for concurrent use while no one changes it.
type Analysis struct {
	// Facts are what the walk recorded, for the rules.
	Facts Facts
	// Files are every file read, in the order first read.
	Files []string
	// Sources holds the text of each file in Files (and of CommandFile).
	Sources map[string][]byte
	loaded  *loadedVals
}

// Mask returns s with the values env-file loads assigned written as
// ${NAME}, as findings show them.
func (an *Analysis) Mask(s string) string { return an.loaded.mask(s) }

// Analyze walks cfg's scripts, each on its own, then cfg.Argv, with paths
// relative to dir (absolute). A non-nil p also records where workers
// start. It returns a *ParseError when a script cannot be read or parsed
// (and cfg.KeepGoing is not set), and the context's error when ctx ends.
// cfg's names are not checked here: envres checks them first.
func Analyze(ctx context.Context, cfg Config, dir string, p *Planner) (*Analysis, error) {
	a := newAnalyzer(ctx, cfg, dir)
	if p != nil {
		a.plan = &planRec{a: a, p: p}
		a.plan.res = resolve.New[event, walkCtx](a, dir)
	}
	for _, s := range cfg.Scripts {
		if err := a.lintScript(s); err != nil {
			return nil, err
		}
		if a.fatal != nil {
			return nil, a.fatal
		}
		a.forget()
	}
	if len(cfg.Argv) > 0 {
		if err := a.lintArgv(cfg.Argv); err != nil {
			return nil, err
		}
	}
	if a.fatal != nil {
		return nil, a.fatal
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	a.pass.Protected = a.protNames()
	if a.plan != nil {
		a.plan.read()
	}
	return &Analysis{Facts: a.pass, Files: a.files, Sources: a.sources, loaded: &a.loaded}, nil
}
