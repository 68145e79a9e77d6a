package group

import (
	"context"

	"github.com/childproof/childproof/launcher"
	"github.com/childproof/childproof/spec"
	"github.com/childproof/childproof/verify"
)

// Running reports whether launch l already runs from the spec file
// whose hash is specHash (the same file, unchanged) and verifies now —
// judged by the evidence verify SPEC uses (the block captured at its
// exec while it holds), against what a start would give it: then `up`
// leaves it as it is instead of starting it again. The report is masked
// with l's secrets and its record's (showValues: as verify shows them).
func Running(ctx context.Context, st *launcher.State, l *spec.Launch, specHash string, showValues bool) (*verify.Report, bool) {
	rec, err := st.Load(l.Name)
	if err != nil || rec.Stopped != nil || rec.Pending || rec.SpecPath != l.SpecPath || rec.SpecHash != specHash || specHash == "" {
		return nil, false
	}
	v := &verify.Verifier{State: st, ShowValues: showValues}
	if rec.Worker.Check(v.Proc) != verify.Alive {
		return nil, false
	}
	env, err := launcher.ResolveEnv(l, nil, nil)
	if err != nil {
		return nil, false
	}
	chk := launcher.RecordedCheck(l, rec, v.Proc)
	chk.Expect = env.Expect()
	r := v.Verify(ctx, chk)
	launcher.VerifyRanks(ctx, v, l, chk, rec, r)
	r.Mask(st.Secrets(launcher.Known{Spec: l, Record: rec}))
	return r, r.Verified
}

// NotRunning returns those of names whose recorded launch in st is not
// running — no readable record, stopped, or its worker no longer alive —
// in the order given: `run` warns that a launch's dependencies are down,
// and `logs -f` stops following a launch that no longer runs.
func NotRunning(st *launcher.State, names ...string) []string {
	var out []string
	for _, n := range names {
		if !st.Running(n) {
			out = append(out, n)
		}
	}
	return out
}
