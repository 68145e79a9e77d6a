package launcher

import (
	"context"
	"errors"
	"github.com/childproof/childproof/outcome"
	"os"
	"strings"
	"testing"

	"github.com/childproof/childproof/redact"
	"github.com/google/go-cmp/cmp"
)

// TestReadLog: a launch's log is given masked by its log mask (a launch
// that left no record), the last N lines or all of them; no log is
// KindNotRecorded; Follow of a launch that does not run returns.
func TestReadLog(t *testing.T) {
	st, err := OpenState(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	const canary = "CANARY-readlog-7f3a"
	if err := st.SaveLogMask("job", redact.Of([]redact.Secret{{Name: "API_KEY", Value: canary}}, st.Digest)); err != nil {
		t.Fatal(err)
	}
	log := "starting\nkey=" + canary + "\nlistening\nlast " + canary
	if err := os.WriteFile(st.LogPath("job"), []byte(log), 0o600); err != nil {
		t.Fatal(err)
	}
	read := func(o LogOptions) []string {
		t.Helper()
		var got []string
		if err := st.ReadLog(context.Background(), "job", o, func(l string) { got = append(got, l) }); err != nil {
			t.Fatal(err)
		}
		return got
	}
	all := []string{"starting", "key=<API_KEY>", "listening", "last <API_KEY>"}
	for _, tc := range []struct {
		name string
		o    LogOptions
		want []string
	}{
		{"every line", LogOptions{Last: -1}, all},
		{"the last two", LogOptions{Last: 2}, all[2:]},
		{"none", LogOptions{}, nil},
		{"follow a launch that does not run", LogOptions{Last: -1, Follow: true}, all},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := read(tc.o)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("ReadLog (-want +got):\n%s", diff)
			}
			if strings.Contains(strings.Join(got, "\n"), canary) {
				t.Errorf("the canary is in the output")
			}
		})
	}
	err = st.ReadLog(context.Background(), "nobody", LogOptions{Last: -1}, func(string) {})
	var le *Error
	if !errors.As(err, &le) || le.Outcome != outcome.NotRecorded {
		t.Fatalf("ReadLog of a launch with no log: %v, want KindNotRecorded", err)
	}
}
