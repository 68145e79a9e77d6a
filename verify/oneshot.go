package verify

import (
	"slices"

	"github.com/childproof/childproof/proc"
)

// JudgeExecEnv judges a worker that is gone, such as a oneshot launch that
// ran to completion, on its exec-time evidence alone. vars is the block
// the kernel set at its exec, captured before it ran an instruction. Each
// protected name of c is checked as on a live worker (missing, empty when
// required, or another value than the intended one) and added to r with
// w as the worker; r.EnvEvidence is EvidenceExec.
func (v *Verifier) JudgeExecEnv(r *Report, c Check, w WorkerInfo, vars []proc.Var) {
	r.Worker = &w
	r.EnvEvidence = EvidenceExec
	x := c.Expect
	for _, n := range x.names() {
		val, present := proc.Lookup(vars, n)
		ec := EnvCheck{Name: n, Present: present}
		if present {
			ec.Digest = v.State.Digest(n, val)
			if v.ShowValues {
				ec.Value = &val
			}
		}
		required := slices.Contains(x.Require, n)
		wantDigest, hasDigest := x.want(v.State, n)
		if hasDigest {
			ec.Matches = ptr(present && ec.Digest == wantDigest)
		}
		about := Subject{Var: n, Pid: w.Pid}
		switch {
		case !present && (required || hasDigest):
			r.AddAbout(KindEnvMissing, about, nil, "%s was not set on the worker (pid %d) at its exec", n, w.Pid)
		case required && present && val == "":
			r.AddAbout(KindEnvMissing, about, nil, "%s was empty on the worker (pid %d) at its exec", n, w.Pid)
		case hasDigest && ec.Digest != wantDigest:
			r.AddAbout(KindEnvMismatch, about, nil, "%s on the worker (pid %d) at its exec differed from the %s (digest %s, want %s)", n, w.Pid, x.what(n), ShortDigest(ec.Digest), ShortDigest(wantDigest))
		}
		r.Env = append(r.Env, ec)
	}
}
