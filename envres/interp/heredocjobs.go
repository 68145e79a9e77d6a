package interp

import (
	"github.com/childproof/childproof/envres/internal/expand"
	"github.com/childproof/childproof/envres/internal/progs"
	"github.com/childproof/childproof/envres/internal/shape"
	"github.com/childproof/childproof/internal/wrapper"
)

// A here-document fed to a job submitter or to a shell somewhere else
// (sbatch, ssh, docker exec …: progs.HeredocJob) is a script of its own,
// run later or elsewhere: the body is linted as that script; the
// submitting command itself runs and returns.

// heredocJobRun lints the here-document of c's statement as the script
// of j: known when it is (its expansions resolved), else as written.
func (a *analyzer) heredocJobRun(c *cmdRun, j progs.Job) bool {
	hd := shape.Heredoc(c.s)
	if hd == nil {
		return false
	}
	ev := a.eval(c.st, c.fc)
	body := ev.Word(hd)
	if !body.Known {
		src := a.sources[c.fc.name]
		start, end := int(hd.Pos().Offset()), int(hd.End().Offset())
		if c.fc.embedded || src == nil || start >= end || end > len(src) {
			return false
		}
		// The expansions of an unquoted delimiter's body happen here,
		// before the job runs; linted as written, they happen in the
		// job with the environment it starts with.
		body = expand.Field{Str: string(src[start:end]), Known: true, Pos: hd.Pos()}
	}
	body.Word = nil // positions: the body starts a line
	cst := c.cst
	switch {
	case j.ExportNone:
		// sbatch(1): "--export=NONE: only SLURM_* variables from the
		// user environment will be defined".
		c.fork()
		cst = c.cst
		a.addWrap(cst, wrapper.EnvReset, a.siteAt(c.st, c.fc, c.fs[0].Pos), "sbatch --export=NONE starts the job with only SLURM's variables: protected variables are dropped", a.protNames()...)
		a.markReset(cst, nil)
	case !j.Inherit:
		cst = a.initialState("")
		cst.chain = c.st.chain
	}
	a.detached = true
	a.runEmbedded(c.st, cst, c.fc, body, nil, callNormal, false, false)
	return true
}
