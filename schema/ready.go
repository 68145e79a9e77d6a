package schema

import (
	"regexp"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
)

// readyKinds are the ready block's probes, of which a launch names at
// most one; none of them is the TCP connect.
var readyKinds = []string{"http", "exec", "log"}

// Kind names the readiness probe r asks for: "http", "exec", "log", or
// "tcp" (none of them: a TCP connect to the declared ports).
func (r Ready) Kind() string {
	switch {
	case r.HTTP != "":
		return "http"
	case len(r.Exec) > 0:
		return "exec"
	case r.Log != "":
		return "log"
	}
	return "tcp"
}

// IsZero reports whether r is the zero Ready (a TCP connect within 10s).
func (r Ready) IsZero() bool {
	return r.HTTP == "" && len(r.Exec) == 0 && r.Log == "" && len(r.Status) == 0 && r.Timeout == 0
}

// StatusOK reports whether an HTTP answer with code is ready: one of
// Status, or 2xx when Status is empty.
func (r Ready) StatusOK(code int) bool {
	if len(r.Status) == 0 {
		return code >= 200 && code <= 299
	}
	for _, s := range r.Status {
		if s == code {
			return true
		}
	}
	return false
}

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

// readyProblems reports a ready block that asks for two probes, a status
// without the GET it judges, an exec argv without a program and a log
// pattern that is not an RE2 regular expression (said without the
// pattern when secret reports it is a secret).
func readyProblems(r *rawReady, secret func(ns string) bool) []fieldProblem {
	var out []fieldProblem
	var kinds []string
	if r.HTTP != "" {
		kinds = append(kinds, "http")
	}
	if r.Exec != nil {
		kinds = append(kinds, "exec")
	}
	if r.Log != "" {
		kinds = append(kinds, "log")
	}
	if len(kinds) > 1 {
		out = append(out, fieldProblem{ns: "ready." + kinds[1], summary: "Conflicting readiness probes",
			detail: "a ready block names one probe: http (a GET), exec (a command that exits 0) or log (a line of output); this one names " + strings.Join(kinds, " and ")})
	}
	if r.Status != nil && r.HTTP == "" {
		out = append(out, fieldProblem{ns: "ready.status", summary: "Status without an HTTP probe", detail: "ready.status judges the answer to ready.http's GET: add http = \"/path\", or drop status"})
	}
	switch {
	case r.Exec == nil:
	case len(r.Exec) == 0:
		out = append(out, fieldProblem{ns: "ready.exec", summary: "Empty readiness command", detail: "ready.exec is an argv, run without a shell until it exits 0: name at least the program, as in [\"pg_isready\", \"-h\", \"127.0.0.1\"]"})
	case r.Exec[0] == "":
		out = append(out, fieldProblem{ns: "ready.exec[0]", summary: "Empty readiness command", detail: "ready.exec's first element is the program to run; it is empty"})
	}
	if r.Log != "" {
		if _, err := regexp.Compile(r.Log); err != nil {
			msg := err.Error()
			if secret != nil && secret("ready.log") {
				msg = "the pattern, from the caller's environment, does not compile"
			}
			out = append(out, fieldProblem{ns: "ready.log", summary: "Invalid log pattern", detail: "ready.log is an RE2 regular expression (Go's regexp syntax): " + msg})
		}
	}
	return out
}
