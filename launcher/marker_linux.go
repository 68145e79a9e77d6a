package launcher

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"

	"github.com/childproof/childproof/launcher/census"
	"github.com/childproof/childproof/launcher/proctree"
	"github.com/childproof/childproof/launcher/relay"
	"github.com/childproof/childproof/outcome"
	"github.com/childproof/childproof/proc"
	"github.com/childproof/childproof/spec"
)

// MarkerVar is the variable every launched process carries in its
// environment (proctree.MarkerVar): CHILDPROOF_LAUNCH=ENC.NONCE.
const MarkerVar = proctree.MarkerVar

// guardPrevious keeps run from starting a second, untracked copy of a
// launch: when the recorded launch of l's name (from this spec file or
// another) still has live members — its worker, or what outlived it in
// its cgroup or carrying its marker, a ptrace-stopped or never-verified
// tree of a killed childproof too — it is the previous instance: stopped
// first with on_stale = "replace", else the run is refused (exit 6),
// naming its spec file and pid. The caller holds the lock, and loaded
// the record (rec, or err) under it.
func guardPrevious(ctx context.Context, p proc.FS, st *State, l *spec.Launch, notify func(*Replaced), rec *Record, err error) error {
	if err != nil {
		return nil
	}
	var members []int
	if rec.Stopped == nil {
		members = census.LiveMembers(p, rec)
	}
	if len(members) == 0 {
		// Gone, or stopped: a log relay it left (its pipe held by
		// something outside the tree) ends with it before a new one
		// starts on the same log.
		relay.End(ctx, p, rec.Relay, census.RelayWait)
		return nil
	}
	from := rec.SpecPath
	if from == "" {
		from = "an unnamed spec"
	}
	what := fmt.Sprintf("pid %d", members[0])
	if !slices.Contains(members, rec.Worker.Pid) {
		what = census.MembersNote(members)
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
