package recorded

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/childproof/childproof/launcher/failure"
	"github.com/childproof/childproof/launcher/mask"
	"github.com/childproof/childproof/launcher/proctree"
	"github.com/childproof/childproof/launcher/runas"
	"github.com/childproof/childproof/launcher/statedir"
	"github.com/childproof/childproof/outcome"
	"github.com/childproof/childproof/proc"
	"github.com/childproof/childproof/redact"
	"github.com/childproof/childproof/spec"
	"github.com/childproof/childproof/verify"
)

// SpecArg resolves a NAME|SPEC[:NAME] argument, as the commands that act
// on a recorded launch take it. A SPEC[:NAME] (spec.IsSpecArg) comes back
// as it is, with a nil record. A recorded launch NAME becomes SPEC:NAME of
// the spec file its record names, and comes with the record.
//
// A NAME with no record and no such spec file is a *failure.Error of Outcome
// outcome.NotRecorded. A record that names no spec file is a *failure.Error of
// Outcome outcome.Usage. A record that fails authentication gives the
// statedir.ErrUntrusted error Load returns.
func (s *State) SpecArg(arg string) (string, *statedir.Record, error) {
	if spec.IsSpecArg(arg) {
		return arg, nil, nil
	}
	rec, err := s.Load(arg)
	if errors.Is(err, statedir.ErrUntrusted) {
		return "", nil, err
	}
	if err != nil {
		return "", nil, &failure.Error{Outcome: outcome.NotRecorded, Err: err,
			Msg: fmt.Sprintf("no launch %q is recorded in %s, and %s is no spec file", arg, s.Dir, arg)}
	}
	if rec.SpecPath == "" {
		return "", nil, &failure.Error{Outcome: outcome.Usage, Msg: fmt.Sprintf("the record of %q names no spec file", arg), Other: arg, Fix: failure.FixSpecArg}
	}
	return rec.SpecPath + ":" + rec.Name, rec, nil
}

// LoadRunning loads the record of launch name and checks, through p (the
// zero value reads /proc), that its recorded worker is still the process
// it started (pid, start time, uid, exe). No record is a *failure.Error of Outcome outcome.NotRecorded; a worker that is
// gone or reused one of Outcome outcome.Gone; a record that fails
// authentication the statedir.ErrUntrusted error Load returns.
func (s *State) LoadRunning(name string, p proc.FS) (*statedir.Record, error) {
	return s.loadLive(nil, name, p, nil)
}

// loadLive is LoadRunning for the launch l (nil: judge the recorded
// worker only): when the recorded worker is gone but the launch's live
// tree has a worker its selector or port selects (Reselect), the record
// comes back naming that one, and note (when not nil) gets what happened.
func (s *State) loadLive(l *spec.Launch, name string, p proc.FS, note func(string)) (*statedir.Record, error) {
	rec, err := s.Load(name)
	if errors.Is(err, statedir.ErrUntrusted) {
		return nil, err
	}
	if err != nil {
		return nil, &failure.Error{Outcome: outcome.NotRecorded, Err: err, Msg: fmt.Sprintf("no launch of %q is recorded in %s", name, s.Dir)}
	}
	if l != nil {
		if again, n := Reselect(p, l, rec); again != nil {
			if n != "" && note != nil {
				note(n)
			}
			return again, nil
		}
	}
	if live := rec.Worker.Check(p); live != verify.Alive {
		if rec.Stopped != nil && live == verify.Gone {
			// As ps --all says: stopped, not lost.
			return nil, &failure.Error{Outcome: outcome.Gone,
				Msg:  fmt.Sprintf("%s is stopped (childproof stopped it at %s): no worker runs to check", name, rec.Stopped.Local().Format(time.DateTime)),
				Name: name, Fix: failure.FixStartAgain,
				Hint: "start it again (launcher.Start)"}
		}
		return nil, &failure.Error{Outcome: outcome.Gone, Msg: fmt.Sprintf("the recorded worker of %q (pid %d) is %s", name, rec.Worker.Pid, live)}
	}
	return rec, nil
}

// Verify is verify SPEC's proof of the recorded launch rec of l,
// which runs (LoadRunning). It makes Check's check, with the
// recorded digests as the intended values and the exec-time evidence. It
// verifies every recorded rank (VerifyRanks) and the worker's user, and
// adds a note when the worker selector matches several processes. The
// report is not masked.
func Verify(ctx context.Context, v *verify.Verifier, l *spec.Launch, rec *statedir.Record) *verify.Report {
	chk := Check(l, rec, v.Proc)
	r := v.Verify(ctx, chk)
	VerifyRanks(ctx, v, l, chk, rec, r)
	v.JudgeTree(r, chk, Tree(v.Proc, rec))
	runas.CheckLaunch(v.Proc, l, rec.Worker.Pid, r)
	if n := proctree.EqualMatchesNote(v.Proc, l, chk.Worker, nil, nil); n != "" {
		r.Notes = append(r.Notes, n)
	}
	return r
}

// VerifyRunning is verify SPEC. It loads the recorded launch of l, which
// must run (LoadRunning through v.Proc, whose errors come back as they
// are), and proves it by its recorded evidence with Verify: the
// intended values are the digests it was started with. The report is
// masked with the secrets of l and of the record.
func (s *State) VerifyRunning(ctx context.Context, v *verify.Verifier, l *spec.Launch) (*verify.Report, error) {
	var notes []string
	rec, err := s.loadLive(l, l.Name, v.Proc, func(n string) { notes = append(notes, n) })
	if err != nil {
		return nil, err
	}
	r := Verify(ctx, v, l, rec)
	r.Notes = append(notes, r.Notes...)
	r.Mask(mask.Of(s.Store, mask.Known{Spec: l, Record: rec}))
	return r, nil
}

// Explain is explain SPEC's view of the recorded launch of l,
// which must run (LoadRunning through v.Proc, whose errors come back as
// they are). It shows names in every process from the recorded root down
// to the recorded worker and beyond. The worker's row is judged by its
// exec-time evidence where verify judges it so, by Check, the
// check Verify makes. Each name's intended value is the digest the
// launch was started with. The rows' argv are masked with the launch's
// secrets (mask.Of l and the record).
func (s *State) Explain(ctx context.Context, v *verify.Verifier, l *spec.Launch, names []string) (*verify.Explanation, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	rec, err := s.loadLive(l, l.Name, v.Proc, nil)
	if err != nil {
		return nil, err
	}
	chk := Check(l, rec, v.Proc)
	intended := map[string]string{}
	for _, n := range names {
		if d := chk.Expect.Digests[n]; d != "" {
			intended[n] = d // what the launch was started with
		}
	}
	rows := v.ExplainTree(chk.Root, chk.Worker, names, chk.ExecEnv, Tree(v.Proc, rec))
	maskRows(rows, mask.Of(s.Store, mask.Known{Spec: l, Record: rec}))
	return &verify.Explanation{Names: names, Rows: rows, Judgements: verify.Judge(rows, names, intended)}, nil
}

// ExplainPid is explain --pid's view of process pid, which
// verify.TakeFingerprint tells is one. It shows names in every process
// from pid (the root) down to its deepest descendant (the worker), in
// pid's ancestors and in its other descendants. values gives the intended
// value of a name, as explain --pid NAME=VALUE does, and a name not in it
// has none. A value is compared as the state's keyed digest and kept
// nowhere. The rows' argv are masked with the secrets of the trusted
// records whose root or worker is one of the rows' processes.
func (s *State) ExplainPid(ctx context.Context, v *verify.Verifier, pid int, names []string, values map[string]string) (*verify.Explanation, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	intended := map[string]string{}
	for n, val := range values {
		intended[n] = s.Digest(n, val)
	}
	rows := v.Explain(pid, 0, names, nil)
	pids := make([]int, len(rows))
	for i, r := range rows {
		pids[i] = r.Pid
	}
	maskRows(rows, mask.Of(s.Store, mask.Known{Pids: pids}))
	x := &verify.Explanation{Names: names, Rows: rows, Judgements: verify.Judge(rows, names, intended)}
	if recs, _ := s.RecordsOfPids(pids...); len(recs) == 0 && !v.ShowValues {
		// Nothing of the launch is known here (another user's, another
		// state dir's): its secrets are not either. What looks like one
		// is masked, and the output says so (it gets pasted into logs).
		guessed := false
		for i := range rows {
			var m bool
			if rows[i].Argv, m = redact.LooksSecret(rows[i].Argv); m {
				guessed = true
			}
		}
		if guessed {
			x.ArgvNote = "no launch recorded in this state dir names these processes, so their secrets are not known here: argv elements that look like secrets (after a flag named like --token, --key, --password or --secret, its --flag=value form, a URL's password) are shown as " + redact.Guessed + "; --show-values shows them"
		}
	}
	return x, nil
}

// maskRows hides the secret values of m in explain rows' argv (values
// shown with --show-values stay).
func maskRows(rows []verify.ExplainRow, m *redact.Set) {
	if m.Empty() {
		return
	}
	for i := range rows {
		rows[i].Argv = m.Argv(rows[i].Argv)
	}
}
