package export

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/childproof/childproof/internal/hcltext"
)

// seconds is d in whole seconds, rounded up, at least 1.
func seconds(d time.Duration) int {
	return max(1, int(math.Ceil(d.Seconds())))
}

// k8sLifecycle is a container's lifecycle: its preStop hook.
type k8sLifecycle struct {
	PreStop *k8sHandler `json:"preStop,omitempty"`
}

type k8sHandler struct {
	Exec k8sExec `json:"exec"`
}

// k8sGrace is the pod's terminationGracePeriodSeconds: the spec's
// stop.timeout, nil without one (Kubernetes' own 30s).
func (p *plan) k8sGrace() *int64 {
	if p.l.Stop.Timeout <= 0 {
		return nil
	}
	n := int64(seconds(p.l.Stop.Timeout))
	return &n
}

// k8sStop gives the container the spec's stop signal: Kubernetes stops a
// container with its image's STOPSIGNAL (SIGTERM by default; the pod
// field lifecycle.stopSignal is alpha, behind ContainerStopSignals), so
// a preStop hook sends the signal to pid 1 (the worker) first, and the
// kubelet's SIGTERM follows the hook. It appends the note that says so.
func (p *plan) k8sStop(c *k8sContainer, notes []string) []string {
	sig := p.l.Stop.Signal
	if sig == "" || sig == "SIGTERM" {
		return notes
	}
	c.Lifecycle = &k8sLifecycle{PreStop: &k8sHandler{Exec: k8sExec{Command: []string{"/bin/sh", "-c", "kill -" + strings.TrimPrefix(sig, "SIG") + " 1"}}}}
	return append(notes, fmt.Sprintf("stop.signal %s: Kubernetes stops a container with SIGTERM (or the image's STOPSIGNAL); the preStop hook sends %s to pid 1, the worker, first (it needs /bin/sh and kill in the image; STOPSIGNAL %s in the image's Dockerfile does the same without them).", sig, sig, strings.TrimPrefix(sig, "SIG")))
}

// nomadStop writes the task's kill_signal and kill_timeout, the spec's
// stop block (each only when the spec sets it: else Nomad's defaults,
// SIGINT for the exec driver and 5s).
func (p *plan) nomadStop(w *hcltext.Writer) {
	if s := p.l.Stop.Signal; s != "" {
		w.Attr("kill_signal", hcltext.Quote(s))
	}
	if p.l.Stop.Timeout > 0 {
		w.Attr("kill_timeout", hcltext.Quote(durationString(p.l.Stop.Timeout)))
	}
}
