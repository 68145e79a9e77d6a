package group

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"
	"time"

	"github.com/childproof/childproof/launcher"
	"github.com/childproof/childproof/proc"
	"github.com/childproof/childproof/spec"
)

// Skip says why DownRecorded signalled nothing for a launch.
type Skip int

const (
	Ran         Skip = iota // not skipped: a stop ran (Result, or Err)
	NotRecorded             // no record: nothing to stop
	OtherSpec               // recorded from another spec file: left alone
	Unreadable              // the record is unreadable (Err): nothing signalled
)

// Stopped is what DownRecorded did for one launch. Its JSON object is
// `childproof down --format json`'s per launch: name, status_before
// (Status), stopped (Ended) and message (Message). It is plain data, safe
// for concurrent use while no one changes it.
type Stopped struct {
	Name   string
	Skip   Skip
	Record *launcher.Record     // the record found (with OtherSpec: the other spec's)
	Result *launcher.StopResult // what the stop did, when it ran without error
	// Err is the stop's error (Ran), or why the record could not be read
	// (Unreadable: the cause, as Load or the lock said it).
	Err error
}

// StatusBefore is what down says of a launch before stopping it
// (Stopped.Status; the JSON's "status_before"): the recorded worker's
// verify.Liveness when a stop ran, or one of the constants below.
type StatusBefore string

// The statuses of a launch down did not stop.
const (
	// BeforeOtherSpec: recorded from another spec file (OtherSpec).
	BeforeOtherSpec StatusBefore = "other spec"
	// BeforeNone: not recorded (NotRecorded).
	BeforeNone StatusBefore = "none"
	// BeforeUnknown: the record is unreadable (Unreadable).
	BeforeUnknown StatusBefore = "unknown"
)

// Status is what became of s's launch before the stop: the worker's
// liveness when a stop ran ("" when it failed: Err), else why it was
// skipped.
func (s Stopped) Status() StatusBefore {
	switch s.Skip {
	case OtherSpec:
		return BeforeOtherSpec
	case NotRecorded:
		return BeforeNone
	case Unreadable:
		return BeforeUnknown
	}
	if s.Result == nil {
		return ""
	}
	return StatusBefore(s.Result.Worker)
}

// Ended reports whether the stop signalled the launch and its worker is
// gone afterwards (the JSON's "stopped").
func (s Stopped) Ended() bool {
	return s.Skip == Ran && s.Result != nil && s.Result.Exited && s.Result.Signalled
}

// Message is down's line for s's launch, "NAME: …": what the stop did
// (StopResult.Text: also a newer launch left running, a record not
// marked stopped), or why nothing was
// signalled. It is "" for a stop that failed (Err): its error says it.
func (s Stopped) Message() string {
	switch s.Skip {
	case OtherSpec:
		return fmt.Sprintf("%s: recorded from %s, not this spec: left alone", s.Name, s.Record.SpecPath)
	case NotRecorded:
		return s.Name + ": not recorded, nothing to stop"
	case Unreadable:
		return fmt.Sprintf("%s: the record is unreadable, nothing was signalled: %v", s.Name, s.Err)
	}
	if s.Result == nil {
		return ""
	}
	msg := s.Result.Text() // as stop says it: a newer launch left running, the record not marked
	if !strings.HasPrefix(msg, s.Name+": ") {
		msg = s.Name + ": " + msg
	}
	return msg
}

// Failed reports whether s is a failure down exits non-zero for: the
// stop failed (Err), the record is unreadable, or it could not be marked
// stopped.
func (s Stopped) Failed() bool {
	return s.Err != nil || s.Result != nil && s.Result.RecordErr != nil
}

// MarshalJSON is s's JSON object: name, status_before, stopped, message.
func (s Stopped) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false) // the caller's encoder escapes HTML, or not
	err := enc.Encode(struct {
		Name    string       `json:"name"`
		Status  StatusBefore `json:"status_before"`
		Stopped bool         `json:"stopped"`
		Message string       `json:"message"`
	}{s.Name, s.Status(), s.Ended(), s.Message()})
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), err
}

var errOtherSpec = errors.New("recorded from another spec file")

// DownRecorded stops the recorded launches of launches, read from st —
// what `childproof down` does — in the order given, which is a stop
// order (spec.File.StopOrder's: each launch before the launches it
// depends on). Each is stopped as launcher.StopLaunch does: SIGTERM,
// SIGKILL after grace, a lock held by a launch in progress waited for up
// to grace; and only a record made from the launch's own spec file. One
// launch's failure does not stop the others' turn; it returns one
// Stopped per launch, in that order.
func DownRecorded(ctx context.Context, p proc.FS, st *launcher.State, launches []*spec.Launch, grace time.Duration) []Stopped {
	out := make([]Stopped, 0, len(launches))
	for _, l := range launches {
		out = append(out, downOne(ctx, p, st, l, grace))
	}
	// A launch that did not run when its turn came may have been started
	// since (an up running at the same time): stop it too, so that down
	// does not end with a launch of the spec running that it said was
	// not. A few passes: an up starts its launches one by one.
	for range 3 {
		again := false
		for i, l := range launches {
			if s := out[i]; s.Skip != NotRecorded && !(s.Skip == Ran && s.Err == nil && s.Result != nil && (!s.Result.Signalled || s.Result.Newer)) {
				continue
			}
			if ctx.Err() != nil || !st.Running(l.Name) {
				continue
			}
			if s := downOne(ctx, p, st, l, grace); s.Skip == Ran {
				out[i], again = s, true
			}
		}
		if !again {
			break
		}
	}
	return out
}

// downOne stops launch l's recorded launch for DownRecorded.
func downOne(ctx context.Context, p proc.FS, st *launcher.State, l *spec.Launch, grace time.Duration) Stopped {
	rec, res, err := launcher.StopLaunch(ctx, p, st, l.Name, grace, grace, func(rec *launcher.Record) error {
		if rec.SpecPath != "" && l.SpecPath != "" && filepath.Clean(rec.SpecPath) != filepath.Clean(l.SpecPath) {
			return errOtherSpec
		}
		return nil
	})
	s := Stopped{Name: l.Name, Record: rec, Result: res, Err: err}
	switch {
	case errors.Is(err, errOtherSpec):
		s.Skip, s.Err = OtherSpec, nil
	case errors.Is(err, fs.ErrNotExist):
		s.Skip, s.Err = NotRecorded, nil
	case rec == nil && err != nil && !errors.Is(err, launcher.ErrLocked):
		s.Skip = Unreadable
		var le *launcher.Error
		if !errors.Is(err, launcher.ErrUntrusted) && errors.As(err, &le) && le.Fix == launcher.FixRecordUnreadable {
			s.Err = le.Err // StopLaunch's "unreadable" says it in other words
		}
	}
	return s
}
