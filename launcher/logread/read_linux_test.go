package logread

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/childproof/childproof/launcher/failure"
	"github.com/childproof/childproof/launcher/statedir"
	"github.com/childproof/childproof/outcome"
	"github.com/childproof/childproof/redact"
	"github.com/google/go-cmp/cmp"
)

// TestReadLog: a launch's log is given masked by its log mask (a launch
// that left no record), the last N lines or all of them; no log is
// KindNotRecorded; Follow of a launch that does not run returns.
func TestReadLog(t *testing.T) {
	st, err := statedir.Open(t.TempDir())
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
	read := func(o Options) []string {
		t.Helper()
		var got []string
		if err := Read(context.Background(), st, nil, "job", o, func(l string) { got = append(got, l) }); err != nil {
			t.Fatal(err)
		}
		return got
	}
	all := []string{"starting", "key=<API_KEY>", "listening", "last <API_KEY>"}
	for _, tc := range []struct {
		name string
		o    Options
		want []string
	}{
		{"every line", Options{Last: -1}, all},
		{"the last two", Options{Last: 2}, all[2:]},
		{"none", Options{}, nil},
		{"follow a launch that does not run", Options{Last: -1, Follow: true}, all},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := read(tc.o)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("Read (-want +got):\n%s", diff)
			}
			if strings.Contains(strings.Join(got, "\n"), canary) {
				t.Errorf("the canary is in the output")
			}
		})
	}
	err = Read(context.Background(), st, nil, "nobody", Options{Last: -1}, func(string) {})
	var le *failure.Error
	if !errors.As(err, &le) || le.Outcome != outcome.NotRecorded {
		t.Fatalf("Read of a launch with no log: %v, want KindNotRecorded", err)
	}
}
