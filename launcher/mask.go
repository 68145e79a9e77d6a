package launcher

import (
	"errors"
	"slices"

	"github.com/childproof/childproof/redact"
	"github.com/childproof/childproof/schema"
)

// secretSet builds a launch's secret set — the one place it is built:
// the spec's own (schema.Launch.Secrets: what env() and file() returned,
// every value of the env file, the env value of each name of the secret
// list) and the value vars gives each name of the secret list and of
// extra (--set-secret). vars is the resolved environment of a launch, or
// the --set values when it was never resolved.
func secretSet(l *schema.Launch, vars map[string]string, extra []string) *redact.Set {
	s := redact.New()
	if l == nil {
		return s
	}
	s.Merge(l.Secrets())
	for _, n := range append(slices.Clone(l.Secret), extra...) {
		if v, ok := vars[n]; ok {
			s.Add(n, v)
		}
	}
	return s
}

// launchSecrets is the secret set of a launch: the resolved env's when
// the env was resolved, else the one its spec and --set values give.
func launchSecrets(l *schema.Launch, env *Env, opts Options) *redact.Set {
	if env != nil {
		return env.Secrets()
	}
	return secretSet(l, opts.Set, opts.SecretSet)
}

// maskErr hides secret values in err's message, hint and report.
func maskErr(err error, s *redact.Set) error {
	var e *Error
	if err == nil || s.Empty() || !errors.As(err, &e) {
		return err
	}
	e.Msg = s.Text(e.Msg)
	e.Hint = s.Text(e.Hint)
	for i, l := range e.Tail {
		e.Tail[i] = s.Text(l)
	}
	e.Report.Mask(s)
	if e.Err != nil {
		if m := s.Text(e.Err.Error()); m != e.Err.Error() {
			e.Err = &maskedError{msg: m, err: e.Err}
		}
	}
	return err
}

// maskedError is a cause whose message held a secret value.
type maskedError struct {
	msg string
	err error
}

func (m *maskedError) Error() string { return m.msg }
func (m *maskedError) Unwrap() error { return m.err }
