package statedir

import (
	"bytes"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/childproof/childproof/verify"
)

// sealV1 writes r as childproof wrote records before format v2: one
// indented JSON object whose "mac" covers its canonical encoding.
func sealV1(t testing.TB, s *Store, r *Record) []byte {
	t.Helper()
	c := *r
	c.MAC = ""
	b, _ := json.Marshal(&c)
	var rt Record
	if err := json.Unmarshal(b, &rt); err != nil {
		t.Fatal(err)
	}
	mac, err := s.macParsed(&rt)
	if err != nil {
		t.Fatal(err)
	}
	c.MAC = mac
	out, _ := json.MarshalIndent(&c, "", "  ")
	return append(out, '\n')
}

// verifiesV1 reports whether b is a v1 record file whose MAC verifies.
func verifiesV1(s *Store, b []byte) bool {
	var r Record
	if json.Unmarshal(b, &r) != nil || r.MAC == "" {
		return false
	}
	want, err := s.macParsed(&r)
	return err == nil && want == r.MAC
}

// verifiesV2 reports whether b is a v2 record file whose MAC verifies.
func verifiesV2(s *Store, b []byte) bool {
	mac, body, _, _, ok := splitV2(b)
	return ok && s.macV2(body) == mac
}

func testRecord() *Record {
	last := 137
	stopped := time.Date(2026, 12, 1, 6, 0, 0, 0, time.UTC)
	fp := verify.Fingerprint{Pid: 4242, StartTime: 99, UID: 1000, Exe: "/usr/bin/srv", Comm: "srv", PidfsInode: 77}
	return &Record{
		Name:     "srv",
		SpecPath: "/s/childproof.hcl", SpecHash: "sha256:ab", Argv: []string{"srv", "--addr", "127.0.0.1:1"}, Dir: "/s",
		Started: time.Date(2026, 12, 1, 5, 0, 0, 123, time.UTC), Detached: true,
		Root: fp, Worker: fp, Pgid: 4242, Cgroup: "/sys/fs/cgroup/childproof/srv-0123abcd",
		Ports: []RecordPort{{Number: 8000, Address: "127.0.0.1"}},
		Env:   map[string]string{"K": "hmac-sha256:00"}, WorkerEnv: map[string]string{"K": "hmac-sha256:00", "PATH": "hmac-sha256:11"}, ExecEnv: map[string]string{"K": "hmac-sha256:00"}, ExecExe: "/usr/bin/srv",
		Log:     "/s/logs/srv.log",
		Stopped: &stopped, Restarts: 2, LastExit: &last,
		Secrets: []RecordSecret{{Name: "K", Digest: "hmac-sha256:22"}},
		Round:   7,
	}
}

// TestRecordFormats: a record is written in format v2 and read back the
// same, its summary agrees with it, a v1 record (one JSON object) is
// still read, and an edit to any line of a v2 file makes it untrusted.
func TestRecordFormats(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the state dir needs a Unix system (owner and mode checks, flock)")
	}
	st, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	want := testRecord()
	if err := st.Save(want); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(st.Files.Record("srv"))
	if lines := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n"); len(lines) != 3 || !strings.HasPrefix(lines[0], recordV2Head) {
		t.Fatalf("record file is not v2:\n%s", b)
	}
	for _, line := range bytes.Split(bytes.TrimSuffix(b, []byte("\n")), []byte("\n")) {
		if !json.Valid(line) {
			t.Errorf("line is not JSON: %s", line)
		}
	}
	got, err := st.Load("srv")
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("Load (-saved +read):\n%s", d)
	}
	sums, bad, err := st.Summaries()
	if err != nil || len(bad) != 0 || len(sums) != 1 {
		t.Fatalf("summaries = %v, %v, %v", sums, bad, err)
	}
	if d := cmp.Diff(summarize(want), sums[0]); d != "" {
		t.Errorf("summary (-record +summary line):\n%s", d)
	}

	// A v1 record is read, and its summary is taken from it.
	old := testRecord()
	old.Name = "old"
	os.WriteFile(st.Files.Record("old"), sealV1(t, st, old), 0o600)
	got, err = st.Load("old")
	if err != nil {
		t.Fatalf("v1 record: %v", err)
	}
	old.MAC = got.MAC
	if d := cmp.Diff(old, got); d != "" {
		t.Errorf("v1 Load (-saved +read):\n%s", d)
	}
	sums, bad, _ = st.Summaries()
	if len(sums) != 2 || len(bad) != 0 || sums[0].Name != "old" || sums[0].Round != 7 {
		t.Errorf("summaries with a v1 record = %+v, bad %v", sums, bad)
	}

	// Any edit of a v2 file's bytes, in any line, is refused.
	lines := bytes.SplitAfter(b, []byte("\n"))
	edits := map[string][]byte{
		"mac":      flip(b, len(recordV2Head)),
		"summary":  bytes.Replace(b, []byte(`"pid":4242`), []byte(`"pid":4243`), 1),
		"record":   append(append(append([]byte{}, lines[0]...), lines[1]...), bytes.Replace(lines[2], []byte(`"pid":4242`), []byte(`"pid":4243`), 1)...),
		"appended": append(append([]byte{}, b...), "{}\n"...),
		"swapped":  append(append(append([]byte{}, lines[0]...), lines[2]...), lines[1]...),
	}
	for what, e := range edits {
		if bytes.Equal(e, b) {
			t.Fatalf("%s: no edit made", what)
		}
		if _, err := st.parseRecord("srv", "p", e); !errors.Is(err, ErrUntrusted) {
			t.Errorf("%s edited: Load error = %v, want untrusted", what, err)
		}
		if _, err := st.parseSummary("srv", "p", e, nil); !errors.Is(err, ErrUntrusted) {
			t.Errorf("%s edited: summary error = %v, want untrusted", what, err)
		}
	}
	// A torn file is unreadable (not acted on either).
	for _, cut := range []int{len(b) / 2, len(lines[0]) + len(lines[1]), 10} {
		_, err := st.parseSummary("srv", "p", b[:cut], nil)
		if err == nil || errors.Is(err, ErrUntrusted) || !strings.Contains(err.Error(), "unexpected end of JSON input") {
			t.Errorf("cut at %d: %v, want unreadable", cut, err)
		}
	}
	// A file renamed to another launch's name names its own launch.
	if _, err := st.parseSummary("other", "p", b, nil); !errors.Is(err, ErrUntrusted) {
		t.Errorf("renamed record: %v, want untrusted", err)
	}
	// The record sealed under another key.
	other, _ := Open(t.TempDir())
	if _, err := other.parseSummary("srv", "p", b, nil); !errors.Is(err, ErrUntrusted) {
		t.Errorf("another key: %v, want untrusted", err)
	}
}

func flip(b []byte, i int) []byte {
	e := bytes.Clone(b)
	e[i] ^= 1
	return e
}

// TestReadStateFileSizes reads state files around the size cap.
func TestReadStateFileSizes(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the state dir needs a Unix system (owner and mode checks, flock)")
	}
	dir := t.TempDir()
	for _, n := range []int{0, 1, 4095, 4096, 4097} {
		p := filepath.Join(dir, "f")
		want := bytes.Repeat([]byte{'x'}, n)
		os.WriteFile(p, want, 0o600)
		got, err := ReadFile(p, 4096)
		if n > 4096 {
			if err == nil || !strings.Contains(err.Error(), "larger than 4096 bytes") {
				t.Errorf("%d bytes: err = %v, want too large", n, err)
			}
			continue
		}
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("%d bytes: read %d bytes, %v", n, len(got), err)
		}
	}
}

// TestRecordsOfPids: the records whose worker or root is one of the
// pids, as Records filtered by them — from the summary lines, and from
// every record when a summary does not say its root (written before
// root_pid).
func TestRecordsOfPids(t *testing.T) {
	st, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	mk := func(name string, root, worker int) {
		r := testRecord()
		r.Name = name
		r.Root.Pid, r.Worker.Pid = root, worker
		if err := st.Save(r); err != nil {
			t.Fatal(err)
		}
	}
	mk("a", 10, 11) // a wrapper and its worker
	mk("b", 20, 20)
	mk("c", 30, 31)
	names := func(pids ...int) []string {
		recs, err := st.RecordsOfPids(pids...)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, r := range recs {
			out = append(out, r.Name)
		}
		slices.Sort(out)
		return out
	}
	for _, tc := range []struct {
		pids []int
		want []string
	}{
		{[]int{11}, []string{"a"}}, // the worker
		{[]int{10}, []string{"a"}}, // the root only
		{[]int{20, 31}, []string{"b", "c"}},
		{[]int{99}, nil},
	} {
		if got := names(tc.pids...); !slices.Equal(got, tc.want) {
			t.Errorf("RecordsOfPids(%v) = %v, want %v", tc.pids, got, tc.want)
		}
	}
	// A summary without root_pid (an older childproof's), sealed under
	// the key: its root is still found, from the whole record.
	b, _ := os.ReadFile(st.Files.Record("c"))
	lines := strings.SplitN(string(b), "\n", 3)
	sum := strings.Replace(lines[1], `,"root_pid":30`, "", 1)
	if sum == lines[1] {
		t.Fatalf("the summary has no root_pid: %s", lines[1])
	}
	body := sum + "\n" + lines[2]
	mac := st.macV2([]byte(body))
	old := recordV2Head + mac[len("hmac-sha256:"):] + "\"}\n" + body
	if err := os.WriteFile(st.Files.Record("c"), []byte(old), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Load("c"); err != nil {
		t.Fatalf("the rewritten record is refused: %v", err)
	}
	if got := names(30); !slices.Equal(got, []string{"c"}) {
		t.Errorf("RecordsOfPids(30) with an old summary = %v, want [c]", got)
	}
	if got := names(10); !slices.Equal(got, []string{"a"}) {
		t.Errorf("RecordsOfPids(10) with an old summary = %v, want [a]", got)
	}
	// A record that fails authentication is never returned, whatever its
	// summary says.
	mk("d", 40, 41)
	b, _ = os.ReadFile(st.Files.Record("d"))
	forged := strings.Replace(string(b), `"comm":"srv"`, `"comm":"srx"`, 1)
	if forged == string(b) {
		t.Fatal("nothing to change in the record")
	}
	os.WriteFile(st.Files.Record("d"), []byte(forged), 0o600)
	if got := names(40, 41); got != nil {
		t.Errorf("RecordsOfPids of a forged record = %v, want none", got)
	}
}

func TestNoteExit(t *testing.T) {
	st, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if err := st.NoteExit("none", 1); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("no record: %v", err)
	}
	if err := st.Save(&Record{Name: "w", Round: 1}); err != nil {
		t.Fatal(err)
	}
	if err := st.NoteExit("w", 3); err != nil {
		t.Fatal(err)
	}
	rec, err := st.Load("w")
	if err != nil || rec.LastExit == nil || *rec.LastExit != 3 || rec.Round != 1 {
		t.Fatalf("record: %+v, %v", rec, err)
	}
}

// TestSealOnceRecordBytes: sealSettled encodes a record's lines once into
// a reused buffer; its file and MAC are byte for byte those of the
// marshal-each-line path (sealSettledRoundTrip), which it takes itself
// for a record JSON changes (invalid UTF-8).
func TestSealOnceRecordBytes(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the state dir needs a Unix system (owner and mode checks, flock)")
	}
	st, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	html, bad, stale := testRecord(), testRecord(), testRecord()
	html.Argv = []string{"srv", "<a&b>", "\u2028", "\ufffd"}
	bad.Argv = []string{"srv", "a\xffb"}
	stale.MAC = "hmac-sha256:stale"
	for i, r := range []*Record{{Name: "a"}, testRecord(), html, bad, stale} {
		for range 2 { // the second seal reuses the first's buffer
			a, b := *r, *r
			got, settled, err := st.sealSettled(&a)
			if err != nil {
				t.Fatal(err)
			}
			want, _, err := st.sealSettledRoundTrip(&b)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) || a.MAC != b.MAC {
				t.Errorf("record %d: sealed once (MAC %s):\n%s\nmarshalled line by line (MAC %s):\n%s", i, a.MAC, got, b.MAC, want)
			}
			if !verifiesV2(st, got) || settled.Name != r.Name || !settled.Started.Equal(r.Started) {
				t.Errorf("record %d: file does not verify, or settled %+v", i, settled)
			}
		}
	}
}
