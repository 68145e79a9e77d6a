package launcher_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/childproof/childproof/launcher"
	"github.com/childproof/childproof/launcher/present"
	"github.com/childproof/childproof/outcome"
	"github.com/childproof/childproof/verify"
	"github.com/google/go-cmp/cmp"
)

// TestStopResultText: stop's line and JSON object for each result, byte
// for byte.
func TestStopResultText(t *testing.T) {
	full := errors.New("write record: no space left on device")
	tests := []struct {
		name     string
		r        launcher.StopResult
		text     string
		note     string
		jsonWant string
	}{
		{"stopped", launcher.StopResult{Name: "api", Worker: verify.Alive, Signalled: true, Exited: true,
			Message: "api: stopped the worker (pid 12) and its process group with SIGTERM"},
			"api: stopped the worker (pid 12) and its process group with SIGTERM", "",
			`{
  "exited": true,
  "killed": false,
  "message": "api: stopped the worker (pid 12) and its process group with SIGTERM",
  "name": "api",
  "signalled": true,
  "status_before": "alive"
}
`},
		{"newer", launcher.StopResult{Name: "api", Worker: verify.Gone, Exited: true, Newer: true,
			Message: "api: the worker (pid 12) is already gone"},
			"api: the worker (pid 12) is already gone; a newer launch of api replaced the record meanwhile, and it was left as it is", "",
			`{
  "exited": true,
  "killed": false,
  "message": "api: the worker (pid 12) is already gone; a newer launch of api replaced the record meanwhile, and it was left as it is",
  "name": "api",
  "signalled": false,
  "status_before": "gone"
}
`},
		{"record error", launcher.StopResult{Name: "api", Worker: verify.Alive, Signalled: true, Killed: true, Exited: true, RecordErr: full,
			Message: "api: stopped the worker (pid 12) and its process group with SIGKILL after 1s"},
			"api: stopped the worker (pid 12) and its process group with SIGKILL after 1s; but the record could not be marked stopped: write record: no space left on device",
			"; but the record could not be marked stopped: write record: no space left on device",
			`{
  "exited": true,
  "killed": true,
  "message": "api: stopped the worker (pid 12) and its process group with SIGKILL after 1s; but the record could not be marked stopped: write record: no space left on device",
  "name": "api",
  "record_error": "write record: no space left on device",
  "signalled": true,
  "status_before": "alive"
}
`},
		{"newer and record error, html kept", launcher.StopResult{Name: "a<b>", Worker: verify.Reused, Newer: true, RecordErr: errors.New("x & y"),
			Message: "a<b>: pid 3 now belongs to another process"},
			"a<b>: pid 3 now belongs to another process; a newer launch of a<b> replaced the record meanwhile, and it was left as it is; but the record could not be marked stopped: x & y",
			"; but the record could not be marked stopped: x & y",
			`{
  "exited": false,
  "killed": false,
  "message": "a<b>: pid 3 now belongs to another process; a newer launch of a<b> replaced the record meanwhile, and it was left as it is; but the record could not be marked stopped: x & y",
  "name": "a<b>",
  "record_error": "x & y",
  "signalled": false,
  "status_before": "pid reused"
}
`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.text, tt.r.Text()); diff != "" {
				t.Errorf("Text (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.note, tt.r.RecordNote()); diff != "" {
				t.Errorf("RecordNote (-want +got):\n%s", diff)
			}
			var b strings.Builder
			if err := present.JSON(&b, &tt.r); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.jsonWant, b.String()); diff != "" {
				t.Errorf("JSON (-want +got):\n%s", diff)
			}
		})
	}
}

// TestRecordFailure: a stop whose record could not be marked ends with
// an error naming the launch and the cause, and a hint; nil otherwise.
func TestRecordFailure(t *testing.T) {
	st, err := launcher.OpenState(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if err := st.RecordFailure(&launcher.StopResult{Name: "api", Newer: true}); err != nil {
		t.Errorf("marked: %v", err)
	}
	cause := errors.New("read-only file system")
	err = st.RecordFailure(&launcher.StopResult{Name: "api", RecordErr: cause})
	var e *launcher.Error
	if !errors.As(err, &e) || e.Outcome != outcome.Usage || !errors.Is(err, cause) {
		t.Fatalf("RecordFailure = %#v: want an *Error of Outcome Usage wrapping the cause", err)
	}
	if got, want := err.Error(), "api: the record could not be marked stopped: read-only file system"; got != want {
		t.Errorf("Error = %q, want %q", got, want)
	}
	if e.Fix != launcher.FixRecordUnmarked || e.Path != st.Dir || e.Name != "api" || e.Hint != "free space in (or make writable) "+st.Dir {
		t.Errorf("Fix %d, Path %q, Name %q, Hint %q: want FixRecordUnmarked, %q, api", e.Fix, e.Path, e.Name, e.Hint, st.Dir)
	}
}
