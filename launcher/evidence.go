package launcher

import (
	"context"
	"slices"

	"github.com/childproof/childproof/proc"
	"github.com/childproof/childproof/schema"
	"github.com/childproof/childproof/verify"
)

// RecordedCheck returns the check of a recorded launch of l as verify SPEC,
// explain SPEC and up's adoption make it: the recorded worker (and root,
// while alive), the intended values as the recorded digests (the spec's env
// and --set, and the value passed for each required name from inherit or
// the env file), and the environment captured at the worker's exec, which
// judges the worker while it holds (its live block may be a title now).
func RecordedCheck(l *schema.Launch, rec *Record, p proc.FS) verify.Check {
	chk := verify.CheckFromSpec(l, verify.Expect{Require: l.Require, Digests: map[string]string{}})
	for n, d := range rec.Env {
		if d != "" {
			chk.Expect.Digests[n] = d
		}
	}
	for n, d := range rec.Given {
		if _, over := chk.Expect.Digests[n]; !over && d != "" && slices.Contains(l.Require, n) {
			chk.Expect.Digests[n] = d
			if chk.Expect.Sources == nil {
				chk.Expect.Sources = map[string]string{}
			}
			chk.Expect.Sources[n] = "recorded at launch"
		}
	}
	chk.Root, chk.Worker = rec.Worker.Pid, rec.Worker.Pid
	chk.ExecEnv = rec.ExecEvidence()
	if rec.Root.Pid != rec.Worker.Pid && rec.Root.Check(p) == verify.Alive {
		chk.Root = rec.Root.Pid
	}
	// A multi-process job: any member may hold the port (torchrun's agent
	// holds the rendezvous port).
	chk.AnyMember = len(rec.Ranks) > 1
	return chk
}

// VerifyRanks verifies every recorded rank of a multi-process job but the
// first (r is the report of chk, the first) with chk's expectations and its
// own recorded exec-time evidence, and adds each rank and its problems to
// r (Report.Workers); a rank that is gone or reused is a problem. A record
// of one worker leaves r as it is.
func VerifyRanks(ctx context.Context, v *verify.Verifier, chk verify.Check, rec *Record, r *verify.Report) {
	if len(rec.Ranks) < 2 {
		return
	}
	wc := func(x *verify.Report) verify.WorkerCheck {
		w := verify.WorkerCheck{Env: x.Env, EnvSource: x.EnvSource}
		if x.Worker != nil {
			w.WorkerInfo = *x.Worker
		}
		return w
	}
	r.Workers = append(r.Workers[:0], wc(r))
	for i := 1; i < len(rec.Ranks); i++ {
		rk := &rec.Ranks[i]
		if live := rk.Worker.Check(v.Proc); live != verify.Alive {
			r.Add(verify.KindExited, "worker %d/%d: the recorded worker (pid %d) is %s", i+1, len(rec.Ranks), rk.Worker.Pid, live)
			continue
		}
		rc := chk
		rc.Worker, rc.Ports, rc.NoReady, rc.ExecEnv = rk.Worker.Pid, nil, true, rk.ExecEvidence()
		rr := v.Verify(ctx, rc)
		r.Workers = append(r.Workers, wc(rr))
		for _, p := range rr.Problems {
			r.AddAbout(p.Kind, p.Subject, p.Err, "worker %d/%d: %s", i+1, len(rec.Ranks), p.Message)
		}
	}
	r.Verified = len(r.Problems) == 0
	r.SetOutcome(r.Judged())
}

// ExecEvidence returns the worker's environment as captured at its exec,
// as a record keeps it (nil: none was captured).
func (r *Record) ExecEvidence() *verify.ExecEnv {
	if r.ExecEnv == nil {
		return nil
	}
	return &verify.ExecEnv{Digests: r.ExecEnv, Exe: r.ExecExe, Area: r.ExecArea}
}
