package schema

import (
	"github.com/childproof/childproof/internal/specrule"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
)

// readyKinds are the ready block's probes, of which a launch names at
// most one; none of them is the TCP connect.
var readyKinds = []string{"http", "exec", "log"}

// readyBody decodes the ready block's probes beyond http and timeout:
// exec (an argv), log (an RE2 regular expression) and status (the HTTP
// codes that count as ready).
func (l *loader) readyBody(c *hcl.BodyContent, s *launchState) {
	if a, ok := c.Attributes["exec"]; ok {
		s.parts["ready.exec"] = a.Expr.Range()
		n := len(l.diags)
		if v, secret, ok := l.strList(a); ok {
			s.raw.Ready.Exec = v
			for i, r := range elementRanges(a.Expr) {
				s.parts[ns("ready.exec", i)] = r
			}
			for i := range secret {
				s.secret[ns("ready.exec", i)] = true
			}
		}
		l.markFailed(s, "ready.exec", n)
	}
	if a, ok := c.Attributes["log"]; ok {
		s.parts["ready.log"] = a.Expr.Range()
		if v, secret, ok := l.strSecret(a); ok {
			s.raw.Ready.Log = v
			s.secret["ready.log"] = secret
		}
	}
	if a, ok := c.Attributes["status"]; ok {
		s.parts["ready.status"] = a.Expr.Range()
		v, _, ok := l.eval(a, cty.List(cty.Number))
		if !ok {
			return
		}
		rs := elementRanges(a.Expr)
		s.raw.Ready.Status = []int{}
		for i, it := 0, v.ElementIterator(); it.Next(); i++ {
			_, e := it.Element()
			bf := e.AsBigFloat()
			code, acc := bf.Int64()
			if !bf.IsInt() || acc != 0 || code < 100 || code > 599 {
				rng := a.Expr.Range()
				if i < len(rs) {
					rng = rs[i]
				}
				l.errorf(&rng, "Invalid HTTP status", "ready.status lists the HTTP status codes that count as ready: whole numbers from 100 to 599, got %s", bf.Text('g', 10))
				continue
			}
			s.raw.Ready.Status = append(s.raw.Ready.Status, int(code))
		}
	}
}

// readyProblems is specrule.ReadyProblems of a raw ready block (secret
// says whether a part's value is secret).
func readyProblems(r *rawReady, secret func(ns string) bool) []fieldProblem {
	return fromRule(specrule.ReadyProblems(specrule.Ready{HTTP: r.HTTP, Exec: r.Exec, Log: r.Log, Status: r.Status}, secret != nil && secret("ready.log")))
}

// checkReady reports what readyProblems finds at its ranges, and an
// empty log pattern.
func (l *loader) checkReady(s *launchState) {
	if s.raw.Ready == nil {
		return
	}
	l.checkFields(s, readyProblems(s.raw.Ready, func(ns string) bool { _, hidden := l.hidden(s, ns); return hidden || s.secret[ns] }))
	if _, ok := s.parts["ready.log"]; ok && s.raw.Ready.Log == "" && !l.isUnknown(s, "ready.log") {
		l.errorf(s.rng("ready.log"), "Empty log pattern", "ready.log is an RE2 regular expression that a line of the worker's output must match; an empty one matches any line: write the line that says it is ready")
	}
}
