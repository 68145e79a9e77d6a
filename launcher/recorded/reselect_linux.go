package recorded

import (
	"fmt"

	"github.com/childproof/childproof/launcher/mask"
	"github.com/childproof/childproof/launcher/proctree"
	"github.com/childproof/childproof/launcher/statedir"
	"github.com/childproof/childproof/proc"
	"github.com/childproof/childproof/spec"
	"github.com/childproof/childproof/verify"
)

// Reselect re-selects the worker of the recorded launch rec of l from its
// live tree when the recorded worker is gone, as when a supervisor
// respawned it, gunicorn --max-requests or uWSGI recycling. The new
// worker is the process its selector names (for a job, the first of its
// workers), else the in-tree owner of a declared port. It returns rec
// itself while the recorded worker runs. Otherwise it returns a copy of
// rec naming the new worker, with the evidence rec kept for it (usually
// none), and a note saying so. It returns nil when nothing is selected:
// the launch is gone, or it has neither selector nor port.
func Reselect(p proc.FS, l *spec.Launch, rec *statedir.Record) (*statedir.Record, string) {
	if rec.Worker.Check(p) == verify.Alive {
		return rec, ""
	}
	t := Tree(p, rec)
	var live []int
	for _, pid := range t.Tree {
		if st, err := p.Stat(pid); err == nil && st.State != 'Z' {
			live = append(live, pid)
		}
	}
	pid := proctree.ReselectPid(p, l, live)
	if pid == 0 {
		return nil, ""
	}
	fp, err := verify.TakeFingerprint(p, pid)
	if err != nil {
		return nil, ""
	}
	out := *rec
	ev := rec.EvidenceOf(p, pid)
	out.Worker, out.ExecEnv, out.ExecExe, out.ExecArea = fp, nil, "", ""
	if ev != nil {
		out.ExecEnv, out.ExecExe, out.ExecArea = ev.Digests, ev.Exe, ev.Area
	}
	judged := "its own environment"
	if ev != nil {
		judged = "the environment its exec received, as recorded"
	}
	note := fmt.Sprintf("the recorded worker (pid %d) is %s; the live tree's worker, pid %d (%s), was selected again and is judged by %s", rec.Worker.Pid, rec.Worker.Check(p), pid, fp.Comm, judged)
	return &out, note
}

// ReselectLive is Reselect for a recorded launch by itself (stop,
// relaunch, history, ps): its workers re-selected by the selector the
// record keeps, else — a record written before it kept one — by the
// spec file it names, read as verify SPEC reads it (the record's
// non-secret --var values, unset env() unknown). It returns a copy of
// rec naming the live tree's worker and a note, or nil while the
// recorded worker runs, for a launch stopped or still pending, or when
// nothing is selected.
func (s *State) ReselectLive(p proc.FS, rec *statedir.Record) (*statedir.Record, string) {
	if rec.Pending || rec.Stopped != nil {
		return nil, ""
	}
	if live := rec.Worker.Check(p); live == verify.Alive || live == verify.Unknown {
		return nil, ""
	}
	l := rec.SelectorLaunch()
	if l == nil {
		l = s.specSelector(rec)
	}
	if l == nil {
		return nil, ""
	}
	again, note := Reselect(p, l, rec)
	if again == nil || again == rec {
		return nil, ""
	}
	// The live worker's exe and comm, masked as the record keeps them.
	again.Worker = mask.Exe(mask.Of(s.Store, mask.Known{Record: rec}), again.Worker)
	return again, mask.Of(s.Store, mask.Known{Record: rec}).Text(note)
}

// specSelector is the launch of rec read from the spec file it names
// (by s.ReadSpec), for its selector; nil when it cannot be read or
// there is no ReadSpec.
func (s *State) specSelector(rec *statedir.Record) *spec.Launch {
	if rec.SpecPath == "" || s.ReadSpec == nil {
		return nil
	}
	vars := map[string]string{}
	for _, v := range rec.Vars {
		if v.Digest == "" {
			vars[v.Name] = v.Value
		}
	}
	l, err := s.ReadSpec(rec.SpecPath, rec.Name, vars)
	if err != nil {
		return nil
	}
	return l
}
