package launcher

import (
	"errors"
	"fmt"
	"maps"
	"slices"

	"github.com/childproof/childproof/redact"
	"github.com/childproof/childproof/spec"
	"github.com/childproof/childproof/verify"
)

// secretSet builds a launch's secret set — the one place it is built,
// with redact.Of making its mask: the spec's own secrets
// (spec.Launch.Secrets: what env() and file() returned, the argv
// elements taken from them, every value of the env file, the env value of
// each name of the secret list) and the value vars gives each name of the
// secret list and of extra (--set-secret). vars is the resolved
// environment of a launch, or the --set values when it was never
// resolved. Each secret carries its keyed digest (digest; nil: none
// taken) and where it occurs: the elements of argv (the argv launched;
// nil: not built yet) and the values of vars built from it. The record
// and the log mask store them, so that a command without the values
// masks by the digests and the recorded occurrences.
func secretSet(l *spec.Launch, vars map[string]string, extra []string, argv []string, digest func(name, value string) string) *redact.Set {
	if l == nil {
		return redact.Of(nil, digest)
	}
	secs := l.Secrets()
	for _, n := range append(slices.Clone(l.Secret), extra...) {
		if v := vars[n]; v != "" {
			secs = append(secs, redact.Secret{Name: n, Value: v})
		}
	}
	type key struct {
		name, value string
		exact       bool
	}
	seen := map[key]bool{}
	out := secs[:0]
	for _, sec := range secs {
		if k := (key{sec.Name, sec.Value, sec.Exact}); !seen[k] {
			seen[k] = true
			out = append(out, sec)
		}
	}
	secs = out
	all := redact.Of(secs, nil)
	names := slices.Sorted(maps.Keys(vars))
	for i := range secs {
		sec := &secs[i]
		if digest != nil {
			sec.Digest = digest(sec.Name, sec.Value)
		}
		one := redact.Of([]redact.Secret{{Name: sec.Name, Value: sec.Value, Exact: sec.Exact}}, nil)
		for j, a := range argv {
			if one.Arg(a) != a {
				sec.Occurs = append(sec.Occurs, redact.Occurrence{Part: fmt.Sprintf("argv[%d]", j), Shown: all.Arg(a)})
			}
		}
		for _, n := range names {
			if v := vars[n]; v == sec.Value || one.Text(v) != v {
				sec.Occurs = append(sec.Occurs, redact.Occurrence{Part: "env[" + n + "]"})
			}
		}
	}
	return redact.Of(secs, digest)
}

// launchSecrets is the secret set of a launch: the resolved env's when
// the env was resolved, else the one its spec and --set values give.
func launchSecrets(l *spec.Launch, env *Env, opts Options) *redact.Set {
	if env != nil {
		return env.Secrets()
	}
	return secretSet(l, opts.Set, opts.SecretSet, nil, nil)
}

// Known is what a command that launches nothing knows of the secrets of
// the launches it shows, without their values in its environment
// (contract §6): Secrets gives the mask of all of it. It is plain data,
// safe for concurrent use while no one changes it.
type Known struct {
	// Spec is the launch's spec as it reads here; nil: none. Its secrets
	// are those known without launching (spec.Launch.Secrets).
	Spec *spec.Launch
	// Record is the launch's record; nil: none. Its secrets are known by
	// their digests and where they occur.
	Record *Record
	// Pids adds the trusted records whose root or worker is one of them
	// (verify --pid, explain --pid); nil: none.
	Pids []int
	// Log adds the log mask written as the last launch of that name
	// started (it covers a launch that failed and left no record); "":
	// none.
	Log string
}

// Secrets returns the mask of what k names: the secrets of the spec, of
// the records and of the log mask, as one secret set (redact.Of). A record
// or log mask that fails authentication adds nothing.
func (s *State) Secrets(k Known) *redact.Set {
	var secs []redact.Secret
	if k.Spec != nil {
		secs = k.Spec.Secrets()
	}
	secs = append(secs, s.RecordSecrets(k.Record)...)
	if len(k.Pids) > 0 {
		recs, _ := s.RecordsOfPids(k.Pids...)
		for _, r := range recs {
			if r != k.Record {
				secs = append(secs, s.RecordSecrets(r)...)
			}
		}
	}
	if k.Log != "" {
		secs = append(secs, s.LogMaskSecrets(k.Log)...)
	}
	var digest func(name, value string) string
	if s.KeyErr() == nil {
		digest = s.Digest
	}
	return redact.Of(secs, digest)
}

// MaskPidReport hides secrets in r, the report of a check of process pid
// as verify --pid makes it (verify.CheckForPid). The secrets are those of
// the trusted records whose root or worker is pid, a process of r's chain
// or r's worker (Known.Pids). So a command that launches nothing masks a
// process it did not start by the records of the launches it may belong
// to. A nil r, or one no record concerns, is left as it is.
func (s *State) MaskPidReport(pid int, r *verify.Report) {
	if r == nil {
		return
	}
	pids := []int{pid}
	for _, c := range r.Chain {
		pids = append(pids, c.Pid)
	}
	if r.Worker != nil {
		pids = append(pids, r.Worker.Pid)
	}
	r.Mask(s.Secrets(Known{Pids: pids}))
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
