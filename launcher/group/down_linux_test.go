package group_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/childproof/childproof/launcher"
	"github.com/childproof/childproof/launcher/group"
	"github.com/childproof/childproof/launcher/present"
	"github.com/childproof/childproof/launcher/statedir"
	"github.com/childproof/childproof/proc"
	"github.com/childproof/childproof/schema"
	"github.com/childproof/childproof/verify"
	"github.com/google/go-cmp/cmp"
)

// TestStoppedText: down's line, status and JSON object for each outcome
// of a launch, byte for byte.
func TestStoppedText(t *testing.T) {
	stopped := &launcher.StopResult{Name: "api", Worker: verify.Alive, Signalled: true, Exited: true,
		Message: "api: stopped the worker (pid 12) and its process group with SIGTERM"}
	tests := []struct {
		name   string
		s      group.Stopped
		msg    string
		status group.StatusBefore
		ended  bool
		failed bool
	}{
		{"ran", group.Stopped{Name: "api", Result: stopped},
			"api: stopped the worker (pid 12) and its process group with SIGTERM", "alive", true, false},
		{"gone", group.Stopped{Name: "api", Result: &launcher.StopResult{Worker: verify.Gone, Exited: true, Message: "api: the worker (pid 12) is already gone"}},
			"api: the worker (pid 12) is already gone", "gone", false, false},
		{"no prefix", group.Stopped{Name: "api", Result: &launcher.StopResult{Worker: verify.Alive, Signalled: true, Exited: true, Message: "stopped"}},
			"api: stopped", "alive", true, false},
		{"record error, and a newer launch left running (as stop says it)", group.Stopped{Name: "api", Result: &launcher.StopResult{Name: "api", Worker: verify.Reused, Newer: true,
			RecordErr: errors.New("read-only file system"), Message: "api: pid 12 now belongs to another process"}},
			"api: pid 12 now belongs to another process; a newer launch of api replaced the record meanwhile, and it was left as it is; but the record could not be marked stopped: read-only file system", "pid reused", false, true},
		{"other spec", group.Stopped{Name: "db", Skip: group.OtherSpec, Record: &launcher.Record{SpecPath: "/other.hcl"}},
			"db: recorded from /other.hcl, not this spec: left alone", group.BeforeOtherSpec, false, false},
		{"not recorded", group.Stopped{Name: "web", Skip: group.NotRecorded},
			"web: not recorded, nothing to stop", group.BeforeNone, false, false},
		{"unreadable", group.Stopped{Name: "web", Skip: group.Unreadable, Err: errors.New("bad <json>")},
			"web: the record is unreadable, nothing was signalled: bad <json>", group.BeforeUnknown, false, true},
		{"failed", group.Stopped{Name: "web", Err: errors.New("cannot identify the worker")},
			"", "", false, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.msg, tt.s.Message()); diff != "" {
				t.Errorf("Message (-want +got):\n%s", diff)
			}
			if got := tt.s.Status(); got != tt.status {
				t.Errorf("Status = %q, want %q", got, tt.status)
			}
			if got := tt.s.Ended(); got != tt.ended {
				t.Errorf("Ended = %v, want %v", got, tt.ended)
			}
			if got := tt.s.Failed(); got != tt.failed {
				t.Errorf("Failed = %v, want %v", got, tt.failed)
			}
			var b strings.Builder
			if err := present.JSON(&b, tt.s); err != nil {
				t.Fatal(err)
			}
			want := "{\n  \"name\": " + quote(tt.s.Name) + ",\n  \"status_before\": " + quote(string(tt.status)) +
				",\n  \"stopped\": " + map[bool]string{true: "true", false: "false"}[tt.ended] + ",\n  \"message\": " + quote(tt.msg) + "\n}\n"
			if diff := cmp.Diff(want, b.String()); diff != "" {
				t.Errorf("JSON (-want +got):\n%s", diff)
			}
		})
	}
}

func quote(s string) string { return `"` + s + `"` }

// TestDownRecordedUnreadable: a record down cannot read is skipped, its
// line naming the cause as the record's read said it.
func TestDownRecordedUnreadable(t *testing.T) {
	dir := t.TempDir()
	st := openState(t, dir)
	path := statedir.Layout{Dir: dir}.Record("torn")
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte("{not json"), 0o600); err != nil {
		t.Fatal(err)
	}
	got := group.DownRecorded(t.Context(), proc.Default, st, []*schema.Launch{{Name: "torn"}}, time.Second)
	if len(got) != 1 || got[0].Skip != group.Unreadable {
		t.Fatalf("DownRecorded = %+v: want one Unreadable", got)
	}
	msg := got[0].Message()
	if !strings.HasPrefix(msg, "torn: the record is unreadable, nothing was signalled: ") || strings.Contains(msg, `the record of "torn"`) {
		t.Errorf("Message = %q: want the cause once", msg)
	}
}
