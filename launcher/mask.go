package launcher

import (
	"errors"
	"slices"

	"github.com/childproof/childproof/redact"
	"github.com/childproof/childproof/schema"
)

// launchSecrets is the redaction set of a launch: the resolved env's
// secrets when the env was resolved, else what the spec and the --set
// values of secret names give.
func launchSecrets(l *schema.Launch, env *Env, opts Options) *redact.Set {
	if env != nil {
		return env.Secrets()
	}
	s := redact.New()
	if l == nil {
		return s
	}
	s.Merge(l.Secrets())
	for _, n := range append(slices.Clone(l.Secret), opts.SecretSet...) {
		if v, ok := opts.Set[n]; ok {
			s.Add(n, v)
		}
	}
	return s
}

// maskErr hides secret values in err's message, hint and report.
func maskErr(err error, s *redact.Set) error {
	var e *Error
	if err == nil || s.Empty() || !errors.As(err, &e) {
		return err
	}
	e.Msg = s.Text(e.Msg)
	e.Hint = s.Text(e.Hint)
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
