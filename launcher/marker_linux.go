package launcher

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"

	"github.com/childproof/childproof/launcher/proctree"
	"github.com/childproof/childproof/outcome"
	"github.com/childproof/childproof/proc"
	"github.com/childproof/childproof/spec"
	"github.com/childproof/childproof/verify"
)

// MarkerVar is the variable every launched process carries in its
// environment (proctree.MarkerVar): CHILDPROOF_LAUNCH=ENC.NONCE.
const MarkerVar = proctree.MarkerVar

// liveMembers lists the live processes of a recorded launch's tree: the
// members of its cgroup (when it is one childproof made for it), else
// those carrying its marker, plus the recorded worker and root while they
// live. A rank that outlived its agent counts: the launch is alive while
// this is not empty.
func liveMembers(p proc.FS, rec *Record) []int {
	var out []int
	add := func(pid int) {
		if !slices.Contains(out, pid) {
			out = append(out, pid)
		}
	}
	if rec.Worker.Check(p) == verify.Alive {
		add(rec.Worker.Pid)
	}
	if rec.Root.Pid != 0 && rec.Root.Check(p) == verify.Alive {
		add(rec.Root.Pid)
	}
	if cg := proctree.TrustedCgroup(rec.Cgroup, rec.Name); cg != "" {
		pids, _ := proctree.CgroupPids(cg)
		for _, pid := range pids {
			if s, err := p.Stat(pid); err == nil && s.State != 'Z' {
				add(pid)
			}
		}
	} else if rec.Marker != "" && !proctree.CgroupRemoved(rec.Cgroup, rec.Name) {
		for _, pid := range proctree.MarkerPids(p, rec.Marker)[rec.Marker] {
			add(pid)
		}
	}
	return out
}

// membersNote says what is left of a launch whose worker is gone.
func membersNote(pids []int) string {
	return fmt.Sprintf("worker gone, %d %s left (pid %s)", len(pids), map[bool]string{true: "member", false: "members"}[len(pids) == 1], proctree.JoinPids(pids))
}

// guardPrevious keeps run from starting a second, untracked copy of a
// launch: when the recorded launch of l's name (from this spec file or
// another) still has live members — its worker, or what outlived it in
// its cgroup or carrying its marker, a ptrace-stopped or never-verified
// tree of a killed childproof too — it is the previous instance: stopped
// first with on_stale = "replace", else the run is refused (exit 6),
// naming its spec file and pid. The caller holds the lock.
func guardPrevious(ctx context.Context, p proc.FS, st *State, l *spec.Launch, notify func(*Replaced)) error {
	rec, err := st.Load(l.Name)
	if err != nil {
		return nil
	}
	var members []int
	if rec.Stopped == nil {
		members = liveMembers(p, rec)
	}
	if len(members) == 0 {
		// Gone, or stopped: a log relay it left (its pipe held by
		// something outside the tree) ends with it before a new one
		// starts on the same log.
		endRelay(ctx, p, rec.Relay, relayWait)
		return nil
	}
	from := rec.SpecPath
	if from == "" {
		from = "an unnamed spec"
	}
	what := fmt.Sprintf("pid %d", members[0])
	if !slices.Contains(members, rec.Worker.Pid) {
		what = membersNote(members)
	}
	if l.OnStale == spec.StaleReplace {
		res, err := StopRecord(ctx, p, st, rec, 0) // its own stop block
		if err != nil {
			return err
		}
		if notify != nil {
			notify(&Replaced{Name: l.Name, From: from, What: what, Stopped: res.Message})
		}
		return nil
	}
	other := ""
	if rec.SpecPath != "" && l.SpecPath != "" && filepath.Clean(rec.SpecPath) != filepath.Clean(l.SpecPath) {
		other = " another spec file,"
	}
	e := &Error{Outcome: outcome.Locked, Err: ErrLocked, Name: l.Name, Spec: l,
		Msg:  fmt.Sprintf("launch %q is already running, recorded from%s %s (%s); nothing was started", l.Name, other, from, what),
		Hint: stopHint, Fix: FixStop}
	if other != "" {
		e.Hint, e.Fix = otherSpecHint, FixOtherSpec
	}
	return e
}

// stopHint is FixStop's hint.
const stopHint = "stop it (its Launch's Stop, or launcher.StopRecord), or set OnStale: \"replace\" to replace it"

// otherSpecHint is FixOtherSpec's hint: a launch of the same name from
// another spec file (another project) runs; never OnStale "replace",
// which would stop the other project's server.
const otherSpecHint = "launch names are shared by every launch using this state dir: rename this launch, give each project its own state dir (Options.StateDir), or, if the other one is yours to end, stop it first (launcher.StopRecord)"
