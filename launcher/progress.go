package launcher

import (
	"fmt"
	"strings"
	"time"
)

// Phase is what a launch is waiting for.
type Phase string

// The phases of a launch, in order.
const (
	// PhaseWorker: the tree runs; the worker (the process matching
	// worker { comm | exe }, else the port's owner, else the launched
	// process once it has exec'd) has not shown up yet.
	PhaseWorker Phase = "worker"
	// PhaseListen: the worker is known and does not listen on its ports yet.
	PhaseListen Phase = "listen"
	// PhaseReady: the worker owns its ports and is verified; its
	// readiness check (TCP connect, or GET ready.http answering 2xx) has
	// not passed yet.
	PhaseReady Phase = "ready"
)

// Progress says what a launch is waiting for. Start reports it through
// Options.Progress each time it changes: a caller at a terminal shows it
// while a slow server starts. It is plain data, safe for concurrent use
// while no one changes it.
type Progress struct {
	// Name is the launch's name.
	Name  string
	Phase Phase
	// Attempt counts from 1; a race is retried.
	Attempt int
	// Root is the launched process; Worker and Comm the worker once known.
	Root   int
	Worker int
	Comm   string
	// Address is the first declared port's address:port, "" without one.
	Address string
	// HTTP is the readiness path, "" for a TCP connect.
	HTTP string
	// Last is why the last readiness check failed ("GET /healthz: 503
	// Service Unavailable"); "" before the first.
	Last string
	// Started is when this attempt's wait began; Timeout is ready.timeout.
	Started time.Time
	Timeout time.Duration
	// Log is the path of the tree's log.
	Log string
}

// String says what the launch waits for, in words:
// "waiting for pid 4312 (python3) to listen on 127.0.0.1:8000".
func (p Progress) String() string {
	who := fmt.Sprintf("pid %d", p.Worker)
	if p.Comm != "" {
		who += " (" + p.Comm + ")"
	}
	switch p.Phase {
	case PhaseListen:
		return fmt.Sprintf("waiting for %s to listen on %s", who, p.Address)
	case PhaseReady:
		s := ""
		if p.HTTP != "" {
			s = fmt.Sprintf("waiting for GET %s on %s to answer 2xx", p.HTTP, p.Address)
		} else {
			s = fmt.Sprintf("waiting for %s to accept a connection", p.Address)
		}
		if p.Last != "" {
			s += " (last: " + lastAnswer(p.Last) + ")"
		}
		return s
	}
	s := fmt.Sprintf("waiting for the worker to start (launched pid %d)", p.Root)
	if p.Address != "" {
		s = fmt.Sprintf("waiting for a process of the tree (launched pid %d) to listen on %s", p.Root, p.Address)
	}
	return s
}

// lastAnswer shortens a probe error to what the server said:
// "GET /healthz: 503 Service Unavailable" → "503 Service Unavailable".
func lastAnswer(err string) string {
	if after, ok := strings.CutPrefix(err, "GET "); ok {
		if _, rest, ok := strings.Cut(after, ": "); ok {
			return rest
		}
	}
	return err
}
