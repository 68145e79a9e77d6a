package mask

import (
	"errors"

	"github.com/childproof/childproof/launcher/failure"
	"github.com/childproof/childproof/redact"
)

// Err hides the secret values of s in err's message, hint and report (a
// *failure.Error's; another error is left as it is).
func Err(err error, s *redact.Set) error {
	var e *failure.Error
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
