package verify

import (
	"context"
	"fmt"
	"time"

	"github.com/childproof/childproof/outcome"
	"github.com/childproof/childproof/proc"
	"github.com/childproof/childproof/spec"
)

// AwaitInterval is how often Await checks again.
const AwaitInterval = 100 * time.Millisecond

// AwaitOptions tune Await. They are plain data, safe for concurrent use
// while no one changes them.
type AwaitOptions struct {
	// Until is when Await stops checking again; the zero value checks
	// once.
	Until time.Time
	// Mask, when set, masks each report before it is judged, passed to
	// Waiting or returned (the caller's secret set).
	Mask func(*Report)
	// Waiting, when set, is called once, with the first report that
	// fails while there is time to check again: a caller's log says why
	// it waits.
	Waiting func(*Report)
}

// ForeignPortError is a port held by a process the check did not start.
// It is found when the process the check was given (Check.Root) is gone.
// No process of its tree can then hold the port, so the holder is a
// stranger, and a worker that could not bind the port failed because of
// it (it exits at once). It is plain data, safe for concurrent use while
// no one changes it.
type ForeignPortError struct {
	// Port is the port held.
	Port int
	// Pid is the process the check was given, which is gone.
	Pid int
	// Holder is the holder's census line (pid, user, program).
	Holder string
	// Report is the last report before Pid went; nil when it was gone
	// from the start.
	Report *Report
}

func (e *ForeignPortError) Error() string {
	return fmt.Sprintf("port %d is held by a process this launch did not start, and pid %d is gone (it could not bind the port?): %s", e.Port, e.Pid, e.Holder)
}

// OutcomeKind is outcome.Foreign (outcome.Classified).
func (e *ForeignPortError) OutcomeKind() outcome.Kind { return outcome.Foreign }

// NoProcessError is a check's process (Check.Root) that does not exist
// when Await starts: outcome.Exited, a worker that never appeared as far
// as the check can see. It is plain data, safe for concurrent use while no
// one changes it.
type NoProcessError struct {
	Pid int
	Err error // the fingerprint's error
}

func (e *NoProcessError) Error() string { return "no such process: " + e.Err.Error() }

func (e *NoProcessError) Unwrap() error { return e.Err }

// OutcomeKind is outcome.Exited (outcome.Classified).
func (e *NoProcessError) OutcomeKind() outcome.Kind { return outcome.Exited }

// Await verifies c (the process c.Root, as `verify --pid` is given it)
// again every AwaitInterval until it is verified, opts.Until has passed,
// ctx ends, or c.Root exits or is replaced (another start time), and
// returns the last report. The report's Outcome is the outcome.
//
// When c.Root does not exist at the start, or is gone while waiting, and
// one of c.Ports is held, the error is a *ForeignPortError (a report that
// already says port-foreign is returned as it is). Otherwise a c.Root that
// does not exist at the start is a *NoProcessError.
func (v *Verifier) Await(ctx context.Context, c Check, opts AwaitOptions) (*Report, error) {
	fp, err := TakeFingerprint(v.Proc, c.Root)
	if err != nil {
		if fe := foreignPort(v.Proc, c.Root, c.Ports, nil); fe != nil {
			return nil, fe
		}
		return nil, &NoProcessError{Pid: c.Root, Err: err}
	}
	waited := false
	for {
		r := v.Verify(ctx, c)
		if opts.Mask != nil {
			opts.Mask(r)
		}
		if r.Verified || !time.Now().Before(opts.Until) || definiteEnvFailure(c, r) {
			return r, nil
		}
		// The process the check is about must still be the one it
		// started with.
		if now, err := TakeFingerprint(v.Proc, c.Root); err != nil || now.StartTime != fp.StartTime {
			if r.Outcome != outcome.Foreign {
				if fe := foreignPort(v.Proc, c.Root, c.Ports, r); fe != nil {
					return r, fe
				}
			}
			return r, nil
		}
		if !waited && opts.Waiting != nil {
			opts.Waiting(r)
		}
		waited = true
		select {
		case <-ctx.Done():
			return r, nil
		case <-time.After(AwaitInterval):
		}
	}
}

// foreignPort is the *ForeignPortError of the first of ports someone
// holds, pid being gone; nil when none is held.
func foreignPort(p proc.FS, pid int, ports []spec.Port, r *Report) *ForeignPortError {
	for _, pt := range ports {
		hs, err := Holders(p, pt.Number, nil)
		if err != nil || len(hs) == 0 {
			continue
		}
		return &ForeignPortError{Port: pt.Number, Pid: pid, Holder: hs[0].Census(p), Report: r}
	}
	return nil
}

// definiteEnvFailure reports whether r fails for a reason no retry can
// change: a required or given variable missing or different on a worker
// that is certainly the final program — the process the check's comm or
// exe names, or one that owns a declared port — whose environment was
// fixed at its exec. A wrapper still on its way to the worker (no such
// process yet, or a shell that has not exec'd) is a race: retried.
func definiteEnvFailure(c Check, r *Report) bool {
	if r.Worker == nil {
		return false
	}
	w := r.Worker
	certain := c.Comm != "" && w.Comm == c.Comm || c.Exe != "" && w.Exe == c.Exe
	for _, p := range r.Ports {
		certain = certain || p.Owned && p.OwnerPid == w.Pid
	}
	if !certain {
		return false
	}
	for _, p := range r.Problems {
		if (p.Kind == KindEnvMismatch || p.Kind == KindEnvMissing) && (p.Subject.Pid == 0 || p.Subject.Pid == w.Pid) {
			return true
		}
	}
	return false
}
