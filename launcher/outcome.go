package launcher

import (
	"fmt"

	"github.com/childproof/childproof/schema"
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
	r.ExitCode = verify.CodeExited
	r.Ready, r.Verified = false, false
	r.Tail = Tail(la.LogPath(), 10)
	return &Error{Outcome: Exited, Kind: verify.KindNotReady, Report: r,
		Msg: r.Problems[len(r.Problems)-1].Message, Hint: notReadyHint(l)}
}

// notReadyHint names ready.timeout with its value and where the output
// so far is.
func notReadyHint(l *schema.Launch) string {
	t := "ready.timeout is " + l.ReadyTimeout().String()
	if l.Ready.Timeout <= 0 {
		t += " (the default)"
	}
	return fmt.Sprintf("%s; a worker that needs longer to start needs a longer one: ready { timeout = \"%s\" } in the launch block; what it printed meanwhile: childproof logs %s",
		t, (2 * l.ReadyTimeout()).String(), l.Name)
}

// portList names the launch's ports: "port 8000", "ports 8000 and 8001".
func portList(l *schema.Launch) string {
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
