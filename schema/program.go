package schema

import (
	"github.com/hashicorp/hcl/v2"
)

// onPath reports whether a bare program name will be found when the
// launch runs: on the launch's own PATH (its env's PATH, else the
// caller's, which inherit passes by default), relative entries taken from
// dir, or else on the caller's PATH, as the launcher looks it up.
func (l *loader) onPath(prog string, la *Launch) bool {
	path, ok := la.Env["PATH"]
	if !ok {
		path, _ = l.lookup("PATH")
	}
	_, found := LookPath(prog, path, la.Dir)
	return found
}

// programf reports a command[0] that cannot be found: an error, or a
// warning under LoadOptions.MissingProgramOK.
func (l *loader) programf(rng *hcl.Range, summary, format string, args ...any) {
	if l.opts.MissingProgramOK || l.programsOptional {
		l.warnf(rng, summary, format, args...)
		return
	}
	l.errorf(rng, summary, format, args...)
}
