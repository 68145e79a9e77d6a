package statedir

import (
	"os"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestWrittenReadBack: a record and a round a Store wrote read back from
// their bytes as Load and LoadRound read them; what another Store (a
// `childproof stop` in a shell, a ps noting the worker gone) wrote there
// since is read and authenticated as before, and so is a forged file.
func TestWrittenReadBack(t *testing.T) {
	dir, st, rec := savedRunning(t)
	other, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	cur, err := st.loadLaunch(rec.Name)
	if err != nil || !cur.SameLaunch(rec) || cur.Stopped != nil {
		t.Fatalf("loadLaunch of what it wrote = %+v, %v", cur, err)
	}
	full, err := st.Load(rec.Name)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(&Record{Name: full.Name, Started: full.Started, Worker: full.Worker, Root: full.Root, Stopped: full.Stopped}, cur); d != "" {
		t.Errorf("loadLaunch (-Load +loadLaunch):\n%s", d)
	}

	// Another process marks it stopped: this Store's MarkStopped sees it.
	theirs := *rec
	if newer, err := other.MarkStopped(&theirs, nil); newer || err != nil {
		t.Fatalf("other MarkStopped = %v, %v", newer, err)
	}
	if cur, err := st.loadLaunch(rec.Name); err != nil || cur.Stopped == nil {
		t.Errorf("loadLaunch after another's stop = %+v, %v; want stopped", cur, err)
	}
	mine := *rec
	if newer, err := st.MarkStopped(&mine, nil); newer || err != nil || mine.Stopped != nil {
		t.Errorf("MarkStopped of a record another stopped = %v, %v, stopped %v; want left as it is", newer, err, mine.Stopped)
	}
	// A newer launch written by another: newer.
	next := *rec
	next.Started = rec.Started.Add(time.Second)
	if err := other.SaveLaunched(&next); err != nil {
		t.Fatal(err)
	}
	mine = *rec
	if newer, err := st.MarkStopped(&mine, nil); !newer || err != nil {
		t.Errorf("MarkStopped under a newer launch = %v, %v; want newer", newer, err)
	}
	// What it wrote, then forged with the same length: untrusted.
	if err := st.SaveLaunched(rec); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(st.Files.Record(rec.Name))
	forged := []byte(string(b))
	forged[len(forged)-3] ^= 1
	if err := os.WriteFile(st.Files.Record(rec.Name), forged, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := st.loadLaunch(rec.Name); err == nil {
		t.Error("loadLaunch accepted a record edited after its write")
	}

	// Rounds: read back as parseRound reads them; changed by another,
	// read again; forged, refused.
	r := &Round{N: 1, Name: "srv", Command: CommandStart, Started: time.Date(2026, 12, 1, 5, 0, 0, 0, time.UTC), Outcome: RoundVerified,
		Delta: RoundDelta{Set: []Override{}, Unset: []string{}}, Overrides: []Override{}, WorkerEnv: map[string]string{"A": "hmac-sha256:00"}}
	if err := st.SaveRound(r, false); err != nil {
		t.Fatal(err)
	}
	got, err := st.LoadRound("srv", 1)
	if err != nil {
		t.Fatal(err)
	}
	b, _ = os.ReadFile(st.RoundPath("srv", 1))
	want, err := st.parseRound("srv", 1, b)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("LoadRound of what it wrote (-parseRound +LoadRound):\n%s", d)
	}
	if err := other.UpdateRound("srv", 1, func(r *Round) bool {
		r.End = &RoundEnd{At: r.Started.Add(time.Minute), How: EndGone, Seen: SeenCensus}
		return true
	}); err != nil {
		t.Fatal(err)
	}
	if got, err := st.LoadRound("srv", 1); err != nil || got.End == nil || got.End.Seen != SeenCensus {
		t.Errorf("LoadRound after another's update = %+v, %v", got, err)
	}
	if err := st.SaveRound(r, false); err != nil {
		t.Fatal(err)
	}
	b, _ = os.ReadFile(st.RoundPath("srv", 1))
	forged = []byte(string(b))
	forged[len(`{`+"\n"+`  "round": 1,`+"\n"+`  "name": "srv",`+"\n"+`  "command": "sta`)] ^= 1
	if err := os.WriteFile(st.RoundPath("srv", 1), forged, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := st.LoadRound("srv", 1); err == nil {
		t.Errorf("LoadRound accepted a round edited after its write:\n%s", forged)
	}
}

// TestMarkStoppedHeld: a Store that holds the launch's lock since it
// wrote the record marks it stopped from that write, as MarkStopped does
// from the file (once: a second mark leaves it); after RestoreRecord, and
// in a Store that wrote none, the file is read (a newer launch there is
// newer).
func TestMarkStoppedHeld(t *testing.T) {
	dir, st, rec := savedRunning(t)
	mine := *rec
	if newer, err := st.MarkStoppedHeld(&mine, nil); newer || err != nil || mine.Stopped == nil {
		t.Fatalf("MarkStoppedHeld = %v, %v, stopped %v; want marked", newer, err, mine.Stopped)
	}
	if got, err := st.Load(rec.Name); err != nil || got.Stopped == nil || !got.Stopped.Equal(*mine.Stopped) {
		t.Errorf("the record after MarkStoppedHeld: %+v, %v", got, err)
	}
	again := *rec
	if newer, err := st.MarkStoppedHeld(&again, nil); newer || err != nil || again.Stopped != nil {
		t.Errorf("a second MarkStoppedHeld = %v, %v, stopped %v; want left as it is", newer, err, again.Stopped)
	}
	// Put back as another launch's (a failed attempt's RestoreRecord):
	// the file is read, and it is newer.
	next := *rec
	next.Stopped = nil
	next.Started = rec.Started.Add(time.Second)
	other, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := other.SaveLaunched(&next); err != nil {
		t.Fatal(err)
	}
	b := other.ReadRecordFile(rec.Name)
	st.RestoreRecord(rec.Name, b)
	mine = *rec
	if newer, err := st.MarkStoppedHeld(&mine, nil); !newer || err != nil {
		t.Errorf("MarkStoppedHeld after RestoreRecord of a newer launch = %v, %v; want newer", newer, err)
	}
	fresh, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	mine = *rec
	if newer, err := fresh.MarkStoppedHeld(&mine, nil); !newer || err != nil {
		t.Errorf("MarkStoppedHeld of a Store that wrote nothing = %v, %v; want newer (read)", newer, err)
	}
}

// savedRunning opens a Store in a fresh state dir and saves a running
// foreground launch's record there: the dir, the Store and the record.
func savedRunning(t *testing.T) (string, *Store, *Record) {
	t.Helper()
	dir := t.TempDir()
	st, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	rec := testRecord()
	rec.Stopped, rec.Detached = nil, false
	if err := st.SaveLaunched(rec); err != nil {
		t.Fatal(err)
	}
	return dir, st, rec
}
