package census

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/childproof/childproof/launcher/failure"
	"github.com/childproof/childproof/outcome"
	"github.com/childproof/childproof/verify"
)

// StopResult says what StopRecord did. The zero value is a stop of no
// launch that did nothing. It is plain data, safe for concurrent use
// while no one changes it.
type StopResult struct {
	// Name is the launch's name; empty in (*Launch).Stop's result.
	Name string
	// Worker is what had become of the recorded worker before the stop.
	Worker verify.Liveness
	// Signalled is set when SIGTERM was sent; Killed when SIGKILL was needed.
	Signalled, Killed bool
	// Exited is set when the worker is gone afterwards.
	Exited bool
	// Message describes what was signalled for a user, "NAME: stopped
	// the worker (pid 123) and its process group with SIGTERM"; Text
	// completes it with what became of the record.
	Message string
	// RecordErr says why the record could not be marked stopped (a full
	// disk, a read-only state dir): the processes are stopped, the record
	// still says running.
	RecordErr error
	// Newer is set when the record was not marked because a newer launch
	// of the name replaced it meanwhile.
	Newer bool
}

// Text is what `childproof stop` says of the stop: Message, then, with
// Newer, that the newer launch was left as it is, then RecordNote.
func (r *StopResult) Text() string {
	msg := r.Message
	if r.Newer {
		msg += "; a newer launch of " + r.Name + " replaced the record meanwhile, and it was left as it is"
	}
	return msg + r.RecordNote()
}

// RecordNote is what Text adds when the record could not be marked
// stopped, "; but the record could not be marked stopped: CAUSE"; ""
// without a RecordErr.
func (r *StopResult) RecordNote() string {
	if r.RecordErr == nil {
		return ""
	}
	return fmt.Sprintf("; but the record could not be marked stopped: %v", r.RecordErr)
}

// stopJSON is the JSON object of a StopResult, its fields in name order.
type stopJSON struct {
	Exited    bool    `json:"exited"`
	Killed    bool    `json:"killed"`
	Message   string  `json:"message"`
	Name      string  `json:"name"`
	RecordErr *string `json:"record_error,omitempty"`
	Signalled bool    `json:"signalled"`
	// StatusBefore is what the census said of the recorded worker before
	// stopping (alive, gone, pid reused, …).
	StatusBefore verify.Liveness `json:"status_before"`
}

// MarshalJSON is `childproof stop --format json`'s object: name,
// status_before (Worker), signalled, killed, exited, message (Text) and,
// with a RecordErr, record_error.
func (r *StopResult) MarshalJSON() ([]byte, error) {
	out := stopJSON{Exited: r.Exited, Killed: r.Killed, Message: r.Text(), Name: r.Name, Signalled: r.Signalled, StatusBefore: r.Worker}
	if r.RecordErr != nil {
		s := r.RecordErr.Error()
		out.RecordErr = &s
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false) // the caller's encoder escapes HTML, or not
	if err := enc.Encode(out); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// RecordFailure is the error a stop with result r ends with when the
// record could not be marked stopped (r.RecordErr). It is an *failure.Error of
// Outcome outcome.Usage and Fix failure.FixRecordUnmarked that names the launch,
// wraps the cause and hints to free space in s.Dir or make it writable.
// It is nil when the record was marked, or left to a newer launch.
func (s *State) RecordFailure(r *StopResult) error {
	if r.RecordErr == nil {
		return nil
	}
	return UnmarkedError(s.Dir, r.Name, r.RecordErr)
}

// UnmarkedError is RecordFailure's error for the record of launch name
// in the state dir dir and the cause of the failed write.
func UnmarkedError(dir, name string, cause error) error {
	return &failure.Error{Outcome: outcome.Usage, Msg: name + ": the record could not be marked stopped", Err: cause,
		Name: name, Path: dir, Fix: failure.FixRecordUnmarked,
		Hint: "free space in (or make writable) " + dir}
}
