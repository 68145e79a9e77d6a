package gitdiff

import (
	"path/filepath"
	"strings"

	"github.com/childproof/childproof/envres"
)

// Findings returns the findings of res that lint --diff-base reports: a
// finding whose line, or a link of whose chain, changed; a finding whose
// load read an env file that changed (its message then names the changed
// files); and every unparsable script's finding, whatever changed (the run
// exits 2 for it). Relative paths of res are relative to dir. res is not
// changed.
func (c *Changes) Findings(res *envres.Result, dir string) *envres.Result {
	abs := func(p string) string {
		if !filepath.IsAbs(p) {
			p = filepath.Join(dir, p)
		}
		if a, err := filepath.Abs(p); err == nil {
			return a
		}
		return p
	}
	out := *res
	out.Findings = []envres.Finding{}
	for _, f := range res.Findings {
		keep := f.Rule == envres.ParseErrorRule.Name || c.Changed(abs(f.File), f.Line)
		for _, l := range f.Chain {
			keep = keep || c.Changed(abs(l.File), l.Line)
		}
		// A load whose env file changed: the finding stays at the load,
		// naming the changed file.
		var changed []string
		for _, r := range f.Reads {
			if c.ChangedFile(r.Path) {
				changed = append(changed, r.Shown)
			}
		}
		if !keep && len(changed) > 0 {
			keep = true
			f.Message += " (" + strings.Join(changed, ", ") + " changed since the --diff-base revision)"
		}
		if keep {
			out.Findings = append(out.Findings, f)
		}
	}
	return &out
}
