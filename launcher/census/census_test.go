//go:build linux

package census

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/childproof/childproof/launcher/proctree"
	"github.com/childproof/childproof/launcher/statedir"
	"github.com/childproof/childproof/proc"
	"github.com/childproof/childproof/verify"
)

// selfAndGone returns the fingerprints of this process (alive) and of a
// process that ran and exited (gone).
func selfAndGone(tb testing.TB) (self, gone verify.Fingerprint) {
	tb.Helper()
	self, err := verify.TakeFingerprint(proc.Default, os.Getpid())
	if err != nil {
		tb.Fatal(err)
	}
	c := exec.Command("true")
	if err := c.Run(); err != nil {
		tb.Fatal(err)
	}
	return self, verify.Fingerprint{Pid: c.Process.Pid, StartTime: 1, Exe: "/usr/bin/true", Comm: "true"}
}

// censusState writes n records: alive of them with this process as the
// worker holding a listener on the recorded port, the rest with a worker
// that is gone and a port held by a stranger (this process too) or free.
func censusState(tb testing.TB, n, alive int) *State {
	tb.Helper()
	st, err := openState(tb.TempDir())
	if err != nil {
		tb.Fatal(err)
	}
	self, gone := selfAndGone(tb)
	var free []net.Listener
	for i := range n {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			tb.Fatal(err)
		}
		port := ln.Addr().(*net.TCPAddr).Port
		if i%2 == 1 && i >= alive {
			free = append(free, ln) // closed once every port is taken
		} else {
			tb.Cleanup(func() { ln.Close() })
		}
		w := gone
		if i < alive {
			w = self
		}
		rec := &statedir.Record{
			Name: fmt.Sprintf("launch-%04d", i),
			Argv: []string{"srv"}, Dir: "/",
			Started: time.Now(), Detached: true,
			Root: w, Worker: w,
			Ports: []statedir.RecordPort{{Number: port, Address: "127.0.0.1"}},
			Env:   map[string]string{}, WorkerEnv: map[string]string{},
		}
		if err := st.Save(rec); err != nil {
			tb.Fatal(err)
		}
	}
	for _, ln := range free {
		ln.Close()
	}
	return st
}

func TestCensusManyRecords(t *testing.T) {
	st := censusState(t, 40, 10)
	es, err := Take(proc.Default, st, false)
	if err != nil {
		t.Fatal(err)
	}
	count := map[string]int{}
	for _, e := range es {
		for _, p := range e.Ports {
			switch {
			case p.Holder == "worker":
				count["worker"]++
			case p.Holder == "none":
				count["none"]++
			case p.HolderPid == os.Getpid():
				count["named"]++
			default: // a freed port taken by another test
				count["none"]++
			}
		}
	}
	// A freed port may be taken meanwhile by another test: none ≤ 15.
	if count["worker"] != 10 || count["named"] < 15 || count["none"]+count["named"] != 30 {
		t.Errorf("holders = %v, want 10 worker, 15 named (this process), 15 none", count)
	}
}

// BenchmarkCensus1000 is ps's census of 1,000 records (100 alive).
func BenchmarkCensus1000(b *testing.B) {
	st := censusState(b, 1000, 100)
	b.ResetTimer()
	for range b.N {
		if _, err := Take(proc.Default, st, false); err != nil {
			b.Fatal(err)
		}
	}
}

// TestCensusNotesGoneOnce: ps notes the end of a gone worker's verified
// round once; the next census leaves the round file as it is.
func TestCensusNotesGoneOnce(t *testing.T) {
	st, err := openState(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	gone := verify.Fingerprint{Pid: 1 << 22, StartTime: 1}
	r := &statedir.Round{N: 1, Name: "g"}
	r.Outcome = "verified"
	if err := st.SaveRound(r, false); err != nil {
		t.Fatal(err)
	}
	if err := st.Save(&statedir.Record{Name: "g", Root: gone, Worker: gone, Round: 1}); err != nil {
		t.Fatal(err)
	}
	if _, err := Take(proc.Default, st, false); err != nil {
		t.Fatal(err)
	}
	got, err := st.LoadRound("g", 1)
	if err != nil || got.End == nil || got.End.Seen != "census" || got.End.How != "gone" {
		t.Fatalf("round after the census: %+v, %v; want its end noted by the census", got, err)
	}
	before, _ := os.ReadFile(st.RoundPath("g", 1))
	if _, err := Take(proc.Default, st, false); err != nil {
		t.Fatal(err)
	}
	if after, _ := os.ReadFile(st.RoundPath("g", 1)); string(after) != string(before) {
		t.Errorf("a second census rewrote the round:\n%s\n%s", before, after)
	}
}

// TestCensusSaysWhyEndUnknown: a launch gone without a recorded end (no
// stop marked it, no supervisor saw it) is never shown as merely gone:
// the census says why its status is unknown — and, when the state dir
// cannot be written now, that a stop could not have marked it. A
// stopped one says nothing of the kind.
func TestCensusSaysWhyEndUnknown(t *testing.T) {
	st, err := openState(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	gone := verify.Fingerprint{Pid: 1 << 22, StartTime: 1}
	stopped := time.Now().UTC()
	for _, r := range []*statedir.Record{
		{Name: "unmarked", Root: gone, Worker: gone},
		{Name: "marked", Root: gone, Worker: gone, Stopped: &stopped},
	} {
		if err := st.Save(r); err != nil {
			t.Fatal(err)
		}
	}
	es, err := Take(proc.Default, st, true)
	if err != nil || len(es) != 2 {
		t.Fatalf("census: %+v, %v", es, err)
	}
	for _, e := range es {
		says := strings.Contains(e.Note, "its end is not recorded")
		if len(e.Note) > 80 {
			t.Errorf("%s: note of %d characters (ps rows keep notes to 80): %q", e.Name, len(e.Note), e.Note)
		}
		if says != (e.Name == "unmarked") {
			t.Errorf("%s (%s): note %q", e.Name, e.Status, e.Note)
		}
	}
	if got, want := unrecordedEnd(syscall.EROFS), "end not recorded: state dir not writable now (read-only file system)"; !strings.Contains(got, want) || len(got) > 80 {
		t.Errorf("unrecordedEnd(EROFS) = %q, want it to say %q", got, want)
	}
	if err := st.writeProblem(); err != nil {
		t.Errorf("writeProblem on a writable state dir: %v", err)
	}
	if ents, _ := os.ReadDir(filepath.Join(st.Dir, "records")); len(ents) != 2 {
		t.Errorf("records/ after the probe: %d entries, want the 2 records (no probe left)", len(ents))
	}
}

// TestCensusRemovedCgroupIsEmpty: a gone launch whose recorded cgroup was
// removed (the kernel removes only an empty one) has no members — its
// marker is not looked for in every process's environ — while the same
// marker, on a record without a cgroup, finds the process that carries it.
func TestCensusRemovedCgroupIsEmpty(t *testing.T) {
	cg, f := proctree.NewCgroup("rmcg")
	if cg == "" {
		t.Skip("no cgroup here (not root, or no cgroup v2)")
	}
	f.Close()
	proctree.RemoveCgroup(cg)
	if !proctree.CgroupRemoved(cg, "rmcg") {
		t.Fatalf("proctree.CgroupRemoved(%s) = false after its removal", cg)
	}
	st, err := openState(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	marker := proctree.NewMarker("rmcg")
	carrier := exec.Command("sleep", "600")
	carrier.Env = []string{proctree.MarkerVar + "=" + marker}
	if err := carrier.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { carrier.Process.Kill(); carrier.Wait() }()
	waitFor(t, "the carrier's exec", func() bool { return proctree.HasMarker(proc.Default, carrier.Process.Pid, marker) })
	gone := verify.Fingerprint{Pid: 1 << 22, StartTime: 1}
	for _, r := range []*statedir.Record{
		{Name: "rmcg", Root: gone, Worker: gone, Cgroup: cg, Marker: marker},
		{Name: "nocg", Root: gone, Worker: gone, Marker: marker},
	} {
		if err := st.Save(r); err != nil {
			t.Fatal(err)
		}
	}
	es, err := Take(proc.Default, st, true)
	if err != nil || len(es) != 2 {
		t.Fatalf("census: %+v, %v", es, err)
	}
	for _, e := range es {
		alive := e.Status == StatusAlive
		if e.Name == "rmcg" && (alive || len(e.Members) != 0) {
			t.Errorf("rmcg (cgroup removed): status %q, members %v; want gone, none", e.Status, e.Members)
		}
		if e.Name == "nocg" && (!alive || len(e.Members) != 1 || e.Members[0] != carrier.Process.Pid) {
			t.Errorf("nocg (no cgroup): status %q, members %v; want alive with the carrier %d", e.Status, e.Members, carrier.Process.Pid)
		}
	}
}

// openState opens the state dir dir as a census reads it, with nothing
// re-selected.
func openState(dir string) (*State, error) {
	s, err := statedir.Open(dir)
	if err != nil {
		return nil, err
	}
	return &State{Store: s}, nil
}

// waitFor polls cond (5 ms) until it holds, failing after 10 s.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	end := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(end) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}
