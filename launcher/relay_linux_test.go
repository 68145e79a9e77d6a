package launcher

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/childproof/childproof/verify"
)

// TestDetachedRelay: a detached launch's output goes through its log
// relay, which the record names, which masks the secrets before the log
// (the worker prints its key, split across two writes of its own) and
// which ends with the tree.
func TestDetachedRelay(t *testing.T) {
	f := newFixture(t)
	l := f.spec("relayed")
	// sh prints the key in two pieces, then execs the server.
	half := len(secret) / 2
	l.Command = append([]string{"sh", "-c", `printf 'key=%s' "$1"; sleep 0.05; printf '%s end\n' "$2"; shift 2; exec "$@"`, "sh", secret[:half], secret[half:]}, l.Command...)
	l.Worker.Comm = "mock-srv"
	l.Secret = []string{"MOCK_LLM_KEY"} // a literal env value is secret by the list
	la, err := f.start(t, l, true)
	if err != nil {
		t.Fatal(err)
	}
	rec := la.Record
	if rec.Relay == nil || rec.Relay.Check(procDefault) != verify.Alive {
		t.Fatalf("record's relay %+v: want a live relay", rec.Relay)
	}
	if b, _ := os.ReadFile(filepath.Join("/proc", strconv.Itoa(rec.Relay.Pid), "comm")); strings.TrimSpace(string(b)) != "childproof-log" {
		t.Errorf("relay comm %q", b)
	}
	log, err := os.ReadFile(la.LogPath())
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(log), secret) || !strings.Contains(string(log), "key=<MOCK_LLM_KEY> end") {
		t.Errorf("log = %q, want the key masked", log)
	}
	if _, err := la.Stop(context.Background()); err != nil {
		t.Fatal(err)
	}
	for end := time.Now().Add(5 * time.Second); rec.Relay.Check(procDefault) == verify.Alive; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(end) {
			t.Fatal("the relay outlived the stopped tree")
		}
	}
}

// TestRelayGoneSaid: a relay killed while its tree runs is not silent:
// ps (Census) says so on the launch.
func TestRelayGoneSaid(t *testing.T) {
	f := newFixture(t)
	la, err := f.start(t, f.spec("norelay"), true)
	if err != nil {
		t.Fatal(err)
	}
	rec := la.Record
	if rec.Relay == nil {
		t.Fatal("no relay recorded")
	}
	la.pipe.relay.Process.Kill()
	for end := time.Now().Add(5 * time.Second); rec.Relay.Check(procDefault) == verify.Alive; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(end) {
			t.Fatal("the killed relay is still there")
		}
	}
	es, err := Census(procDefault, f.state, false)
	if err != nil || len(es) != 1 {
		t.Fatalf("census: %+v, %v", es, err)
	}
	if es[0].Status != string(verify.Alive) || !strings.Contains(es[0].Note, "log relay (pid "+strconv.Itoa(rec.Relay.Pid)+") is gone") {
		t.Errorf("census entry: status %q, note %q; want alive and the relay named gone", es[0].Status, es[0].Note)
	}
}
