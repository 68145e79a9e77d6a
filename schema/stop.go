package schema

import (
	"github.com/hashicorp/hcl/v2"
)

var stopSchema = &hcl.BodySchema{Attributes: []hcl.AttributeSchema{{Name: "signal"}, {Name: "timeout"}}}

// stopBlock decodes stop { signal = "SIGTERM", timeout = "10s" }.
func (l *loader) stopBlock(blk *hcl.Block, s *launchState) {
	c, d := blk.Body.Content(stopSchema)
	l.diags = append(l.diags, d...)
	if c == nil {
		return
	}
	l.strAttr(c, s, "stop", "signal", &s.raw.Stop.Signal)
	l.strAttr(c, s, "stop", "timeout", &s.raw.Stop.Timeout)
}

// decodeOneshot decodes the launch's oneshot, a bool.
func (l *loader) decodeOneshot(s *launchState, c *hcl.BodyContent) {
	a, ok := s.attr(c, "oneshot")
	if !ok {
		return
	}
	n := len(l.diags)
	if v, ok := l.boolean(a); ok {
		s.raw.Oneshot = v
	}
	l.markFailed(s, "oneshot", n)
}

// checkOneshot reports what a oneshot launch cannot have: a port (it
// runs to completion, serving nothing), a ready block (its readiness is
// its exit 0) and a restart block (it is done once it succeeded).
func (l *loader) checkOneshot(s *launchState, la *Launch) {
	if !la.Oneshot {
		return
	}
	for i := range s.raw.Ports {
		l.errorf(s.rng(ns("port", i)), "Port on a oneshot launch", "a oneshot launch runs to completion and its success is exit 0; it takes no port block (a launch that serves is not oneshot)")
	}
	for _, b := range []string{"ready", "restart"} {
		if _, ok := s.parts[b]; ok {
			l.errorf(s.rng(b), "Unexpected "+b+" block on a oneshot launch", "a oneshot launch runs to completion and its success is exit 0; it takes no %s block", b)
		}
	}
}

// checkReadyPort reports a ready block whose probe needs a port (an
// http GET, or with no probe and no timeout the TCP connect) on a launch
// without a port block: there would be nothing to probe, and readiness
// would prove nothing. A ready block with a probe of its own (exec, log)
// needs none, and one with only a timeout bounds the wait for the worker.
func (l *loader) checkReadyPort(s *launchState, la *Launch) {
	if la.Oneshot || len(s.raw.Ports) > 0 {
		return
	}
	if _, ok := s.parts["ready"]; !ok {
		return
	}
	for _, own := range []string{"ready.exec", "ready.log"} {
		if _, ok := s.parts[own]; ok {
			return
		}
	}
	if _, ok := s.parts["ready.http"]; ok {
		l.errorf(s.rng("ready.http"), "Readiness without a port", "ready.http is a GET to the launch's port, but the launch has no port block: add port \"NAME\" { number = N } for the port the worker listens on, or drop http")
		return
	}
	if _, ok := s.parts["ready.timeout"]; ok {
		return // only how long to wait for the worker
	}
	if _, ok := s.parts["ready.status"]; ok {
		return // status without http: its own diagnostic says what is missing
	}
	l.errorf(s.rng("ready"), "Readiness without a port", "a ready block without a probe is a TCP connect to the launch's port, but the launch has no port block: add port \"NAME\" { number = N } for the port the worker listens on, or drop ready")
}
