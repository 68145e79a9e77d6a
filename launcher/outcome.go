package launcher

import (
	"errors"
	"fmt"
	"time"

	"github.com/childproof/childproof/internal/probe"
	"github.com/childproof/childproof/outcome"
	"github.com/childproof/childproof/spec"
	"github.com/childproof/childproof/verify"
)

// notReadyError is the one failure of a launch whose worker was not ready
// within ready.timeout, whatever it was still waiting for (what: the
// worker to appear, to listen, or its readiness check to pass): exit 5,
// problem kind not-ready, "not ready within T: …", and a hint naming
// ready.timeout and its value.
func (la *Launch) notReadyError(r *verify.Report, what string) *Error {
	l := la.Spec
	r.Add(verify.KindNotReady, "not ready within %s: %s", l.ReadyTimeout(), what)
	r.SetOutcome(outcome.Exited)
	r.Ready, r.Verified = false, false
	return &Error{Outcome: outcome.Exited, Report: r,
		Msg: r.Problems[len(r.Problems)-1].Message, Tail: la.withTail(r), Hint: notReadyHint(l, la.LogPath()),
		Fix: FixNotReady, Spec: l, Path: la.LogPath()}
}

// notReadyHint names ready.timeout with its value and where the output
// so far is.
func notReadyHint(l *spec.Launch, log string) string {
	t := "Ready.Timeout is " + l.ReadyTimeout().String()
	if l.Ready.Timeout <= 0 {
		t += " (the default)"
	}
	return fmt.Sprintf("%s; a worker that needs longer to start needs a longer one (Ready.Timeout: %s, say); what it printed meanwhile is in %s",
		t, goDuration(2*l.ReadyTimeout()), log)
}

// answered makes e, a not-ready failure whose readiness GET the worker
// answered with a 4xx status (err), FixReadyPath: it is up and serving, so
// a longer timeout would not help; the path (or what serves it) is what to
// look at. Other errors (a 5xx, 503 while loading a model, may pass in
// time) leave e as it is.
func answered(e *Error, err error, l *spec.Launch) {
	var se *probe.StatusError
	if !errors.As(err, &se) || se.Code < 400 || se.Code > 499 {
		return
	}
	e.Fix, e.Err = FixReadyPath, quietCause{se}
	e.Hint = fmt.Sprintf("the worker is up and answers GET %s with %s: check Ready.HTTP (%q: the path it serves its health check on), not the timeout", se.Path, se.Status, l.Ready.HTTP)
}

// portList names the launch's ports: "port 8000", "ports 8000 and 8001".
func portList(l *spec.Launch) string {
	switch len(l.Ports) {
	case 0:
		return "its ports"
	case 1:
		return fmt.Sprintf("port %d", l.Ports[0].Number)
	}
	s := "ports "
	for i, p := range l.Ports {
		switch {
		case i == len(l.Ports)-1:
			s += " and "
		case i > 0:
			s += ", "
		}
		s += fmt.Sprint(p.Number)
	}
	return s
}

// goDuration writes d as a Go expression: 20 * time.Second.
func goDuration(d time.Duration) string {
	switch {
	case d%time.Second == 0:
		return fmt.Sprintf("%d * time.Second", d/time.Second)
	case d%time.Millisecond == 0:
		return fmt.Sprintf("%d * time.Millisecond", d/time.Millisecond)
	}
	return fmt.Sprintf("time.Duration(%d)", int64(d))
}

// withTail puts the log's last lines into r.Tail and returns them, for
// Error.Tail (every failure of a started tree says what it printed last).
func (la *Launch) withTail(r *verify.Report) []string {
	r.Tail = la.tail(10)
	return r.Tail
}
