package launcher

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/childproof/childproof/outcome"
	"github.com/childproof/childproof/proc"
)

// TestStopLaunchRecordErrors: a record StopLaunch cannot read signals
// nothing and is an *Error saying why: not recorded (wrapping
// fs.ErrNotExist) or unreadable (the cause, a hint).
func TestStopLaunchRecordErrors(t *testing.T) {
	st, err := OpenState(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(st.Files.Record("torn"), []byte("{not json"), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name     string
		kind     outcome.Kind
		msg      string
		notExist bool
		fix      Fix
	}{
		{"missing", outcome.NotRecorded, `no launch "missing" is recorded in ` + st.Dir, true, FixNone},
		{"torn", outcome.Usage, `the record of "torn" is unreadable, nothing was signalled`, false, FixRecordUnreadable},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec, res, err := StopLaunch(context.Background(), proc.Default, st, tt.name, time.Second, time.Second, nil)
			if rec != nil || res != nil {
				t.Errorf("StopLaunch = %v, %v: want no record, no result", rec, res)
			}
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("StopLaunch error %v: want an *Error", err)
			}
			if e.Outcome != tt.kind || e.Msg != tt.msg || e.Fix != tt.fix || errors.Is(err, fs.ErrNotExist) != tt.notExist {
				t.Errorf("StopLaunch error = %v %q (fix %d, not exist %v); want %v %q (fix %d, not exist %v)",
					e.Outcome, e.Msg, e.Fix, errors.Is(err, fs.ErrNotExist), tt.kind, tt.msg, tt.fix, tt.notExist)
			}
			if e.Err == nil || !strings.HasPrefix(err.Error(), tt.msg+": ") {
				t.Errorf("StopLaunch error %q: want %q and the cause", err, tt.msg)
			}
		})
	}
}
