package census

import (
	"os"
	"testing"
	"time"

	"github.com/childproof/childproof/launcher/statedir"
	"github.com/childproof/childproof/proc"
)

// TestCountStopped: the count is the StatusStopped entries of Census with
// all — stopped and gone — and not a stopped record whose worker (this
// process) is alive, nor a running or gone one, nor an untrusted record.
func TestCountStopped(t *testing.T) {
	st, err := openState(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	self, gone := selfAndGone(t)
	now := time.Now()
	for _, r := range []*statedir.Record{
		{Name: "stopped-1", Root: gone, Worker: gone, Stopped: &now},
		{Name: "stopped-2", Root: gone, Worker: gone, Stopped: &now},
		{Name: "stopped-alive", Root: self, Worker: self, Stopped: &now},
		{Name: "running", Root: self, Worker: self},
		{Name: "gone", Root: gone, Worker: gone},
	} {
		if err := st.Save(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(st.Files.Record("forged"), []byte(`{"name":"forged","stopped":"2020-01-01T00:00:00Z","mac":"hmac-sha256:00"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	got, err := CountStopped(proc.Default, st)
	if err != nil {
		t.Fatal(err)
	}
	es, err := Take(proc.Default, st, true)
	if err != nil {
		t.Fatal(err)
	}
	want := 0
	for _, e := range es {
		if e.Status == StatusStopped {
			want++
		}
	}
	if got != 2 || got != want {
		t.Errorf("CountStopped = %d, want 2 (Take with all lists %d stopped: %+v)", got, want, es)
	}
}
