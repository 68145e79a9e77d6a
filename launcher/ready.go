package launcher

import (
	"fmt"
	"regexp"

	"github.com/childproof/childproof/outcome"
	"github.com/childproof/childproof/spec"
)

// check refuses readiness that cannot be judged for l: an HTTP matcher
// without the GET it judges.
func (r Readiness) check(l *spec.Launch) error {
	if (r.Status != nil || r.Body != nil) && l.Ready.HTTP == "" {
		return withHint(errorf(outcome.Usage, "launch %q: Options.Ready.Status and Ready.Body judge the answer to the launch's Ready.HTTP GET, and Ready.HTTP is empty", l.Name),
			"set the launch's Ready.HTTP to the path to GET (\"/healthz\")")
	}
	if (r.Status != nil || r.Body != nil) && len(l.Ports) == 0 {
		return withHint(errorf(outcome.Usage, "launch %q: Options.Ready.Status and Ready.Body judge an HTTP answer, and the launch declares no port to GET from", l.Name),
			"declare the worker's port in Ports")
	}
	if r.LogCount < 0 || r.LogCount > 1 && r.Log == nil {
		return errorf(outcome.Usage, "launch %q: Options.Ready.LogCount is %d: it counts the lines that match Options.Ready.Log, which must be set, and is not negative", l.Name, r.LogCount)
	}
	return nil
}

// matchHTTP judges an answer by Status (nil: 2xx) and Body.
func (r Readiness) matchHTTP(code int, body []byte) error {
	ok := code >= 200 && code <= 299
	if r.Status != nil {
		ok = r.Status(code)
	}
	switch {
	case !ok && r.Status != nil:
		return fmt.Errorf("status %d: not ready by Options.Ready.Status", code)
	case !ok:
		return fmt.Errorf("status %d, not 2xx", code)
	}
	if r.Body != nil && !r.Body.Match(body) {
		return fmt.Errorf("status %d, and the body does not match Options.Ready.Body %s", code, quoteRe(r.Body))
	}
	return nil
}

func quoteRe(re *regexp.Regexp) string { return fmt.Sprintf("%q", re.String()) }

// withHint sets e's Hint to h and returns e.
func withHint(e *Error, h string) *Error {
	e.Hint = h
	return e
}
