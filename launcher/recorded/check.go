package recorded

import (
	"slices"

	"github.com/childproof/childproof/launcher/statedir"
	"github.com/childproof/childproof/proc"
	"github.com/childproof/childproof/spec"
	"github.com/childproof/childproof/verify"
)

// Check returns the check of a recorded launch of l, as verify
// SPEC, explain SPEC and up's adoption make it. It checks the recorded
// worker, and the recorded root while it is alive. The intended values are
// the recorded digests: those of the spec's env and --set, and of the
// value passed for each required name from inherit or the env file. The
// environment captured at the worker's exec judges the worker while it
// holds, because its live block may be a title now.
func Check(l *spec.Launch, rec *statedir.Record, p proc.FS) verify.Check {
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
	if len(l.Roles) > 0 {
		chk.AnyMember = false
		chk.Owners = owners(p, l, rec)
	}
	return chk
}
