package launcher

import (
	"context"
	"errors"
	"fmt"

	"github.com/childproof/childproof/proc"
	"github.com/childproof/childproof/schema"
	"github.com/childproof/childproof/verify"
)

// SpecArg resolves a NAME|SPEC[:NAME] argument, as the commands that act
// on a recorded launch take it: a SPEC[:NAME] (schema.IsSpecArg) comes
// back as it is, with a nil record; a recorded launch NAME becomes
// SPEC:NAME of the spec file its record names, with the record. A NAME
// with no record (and no such spec file) is an *Error of Kind
// KindNotRecorded; a record that names no spec file one of Outcome
// Invalid; a record that fails authentication the ErrUntrusted error Load
// returns.
func (s *State) SpecArg(arg string) (string, *Record, error) {
	if schema.IsSpecArg(arg) {
		return arg, nil, nil
	}
	rec, err := s.Load(arg)
	if errors.Is(err, ErrUntrusted) {
		return "", nil, err
	}
	if err != nil {
		return "", nil, &Error{Outcome: Invalid, Kind: KindNotRecorded, Err: err,
			Msg: fmt.Sprintf("no launch %q is recorded in %s, and %s is no spec file", arg, s.Dir, arg)}
	}
	if rec.SpecPath == "" {
		return "", nil, &Error{Outcome: Invalid, Kind: KindUsage, Msg: fmt.Sprintf("the record of %q names no spec file", arg), Hint: "pass the spec: SPEC:" + arg}
	}
	return rec.SpecPath + ":" + rec.Name, rec, nil
}

// LoadRunning loads the record of launch name and checks, through p (the
// zero value reads /proc), that its recorded worker is still the process
// it started (pid, start time, uid, exe). No record is an *Error of Kind KindNotRecorded; a worker that is
// gone or reused one of Outcome Exited; a record that fails
// authentication the ErrUntrusted error Load returns.
func (s *State) LoadRunning(name string, p proc.FS) (*Record, error) {
	rec, err := s.Load(name)
	if errors.Is(err, ErrUntrusted) {
		return nil, err
	}
	if err != nil {
		return nil, &Error{Outcome: Invalid, Kind: KindNotRecorded, Err: err, Msg: fmt.Sprintf("no launch of %q is recorded in %s", name, s.Dir)}
	}
	if live := rec.Worker.Check(p); live != verify.Alive {
		return nil, &Error{Outcome: Exited, Kind: verify.KindExited, Msg: fmt.Sprintf("the recorded worker of %q (pid %d) is %s", name, rec.Worker.Pid, live)}
	}
	return rec, nil
}

// VerifyRecorded is verify SPEC's proof of the recorded launch rec of l,
// which runs (LoadRunning): RecordedCheck's check (the intended values as
// the recorded digests, the exec-time evidence), every recorded rank
// (VerifyRanks), the worker's user, and a note when the worker selector
// matches several processes. The report is not masked.
func VerifyRecorded(ctx context.Context, v *verify.Verifier, l *schema.Launch, rec *Record) *verify.Report {
	chk := RecordedCheck(l, rec, v.Proc)
	r := v.Verify(ctx, chk)
	VerifyRanks(ctx, v, chk, rec, r)
	checkUser(v.Proc, l, rec.Worker.Pid, r)
	if n := equalMatchesNote(v.Proc, l, chk.Worker, nil, nil); n != "" {
		r.Notes = append(r.Notes, n)
	}
	return r
}
