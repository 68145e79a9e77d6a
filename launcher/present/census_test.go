package present_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/childproof/childproof/launcher"
	"github.com/childproof/childproof/launcher/present"
	"github.com/childproof/childproof/verify"
	"github.com/google/go-cmp/cmp"
)

// TestCensusEntryText: ps's PID, AGE, ROUND and PORTS columns for each
// kind of entry, byte for byte.
func TestCensusEntryText(t *testing.T) {
	now := time.Date(2026, 12, 2, 12, 0, 0, 0, time.UTC)
	exit := 3
	const euid = 1000
	ports := []launcher.CensusPort{{Number: 8080, Address: "127.0.0.1", Holder: "worker"}, {Number: 9090, Address: "0.0.0.0", Holder: "none"}}
	type cols struct{ Pid, Age, Round, Ports string }
	tests := []struct {
		name string
		e    launcher.CensusEntry
		want cols
	}{
		{"alive", launcher.CensusEntry{Status: launcher.StatusAlive, Worker: verify.Fingerprint{Pid: 12, UID: euid}, Started: now.Add(-90*time.Second - 400*time.Millisecond), Ports: ports, Round: 2},
			cols{"12", "1m30s", "2", "127.0.0.1:8080 worker; 0.0.0.0:9090 none"}},
		{"unknown start, no round, no ports", launcher.CensusEntry{Status: launcher.StatusUnknown},
			cols{"0", "-", "-", ""}},
		{"pending", launcher.CensusEntry{Status: launcher.StatusUnverified, Worker: verify.Fingerprint{Pid: 12, UID: euid}, Started: now.Add(-time.Hour), Ports: ports[:1], Pending: true},
			cols{"12", "1h0m0s", "-", "127.0.0.1:8080 worker (never verified)"}},
		{"untrusted", launcher.CensusEntry{Status: launcher.StatusUntrusted, Worker: verify.Fingerprint{Pid: 12, UID: 0}, Ports: ports[:1]},
			cols{"12?", "-", "-", "127.0.0.1:8080 worker (claimed by the record, unverified)"}},
		{"untrusted, no pid", launcher.CensusEntry{Status: launcher.StatusUntrusted},
			cols{"0", "-", "-", ""}},
		{"another user", launcher.CensusEntry{Status: launcher.StatusAlive, Worker: verify.Fingerprint{Pid: 12, UID: 0}, Ports: ports[:1]},
			cols{"12", "-", "-", "127.0.0.1:8080 worker (as root, uid 0)"}},
		{"workers, note, restarts", launcher.CensusEntry{Status: launcher.StatusGone, Worker: verify.Fingerprint{Pid: 12, UID: euid}, Workers: 4, Note: "3 processes of its tree left",
			Restarts: 1, LastExit: &exit},
			cols{"12", "-", "-", " (4 workers, the first shown) (3 processes of its tree left) (1 restart, last exit status 3)"}},
		{"restarts without an exit", launcher.CensusEntry{Status: launcher.StatusAlive, Worker: verify.Fingerprint{Pid: 12, UID: euid}, Restarts: 2},
			cols{"12", "-", "-", " (2 restarts)"}},
		{"an exit without restarts", launcher.CensusEntry{Status: launcher.StatusGone, LastExit: &exit},
			cols{"0", "-", "-", " (0 restarts, last exit status 3)"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := cols{present.PidText(&tt.e), present.AgeText(&tt.e, now), present.RoundText(&tt.e), present.PortsText(&tt.e, euid)}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("columns (-want +got):\n%s", diff)
			}
		})
	}
}

// TestWriteCensus pins ps's table byte for byte: the header and a row per
// entry; the entries of one spec file together in a stable order, with a
// "# PATH" line per spec file (relative to Dir below it, "(no spec
// file)" for none) only when there are several; es left in its order.
func TestWriteCensus(t *testing.T) {
	now := time.Date(2026, 12, 2, 12, 0, 0, 0, time.UTC)
	const euid = 1000
	port := []launcher.CensusPort{{Number: 8080, Address: "127.0.0.1", Holder: "worker"}}
	entry := func(name, spec string, pid int) launcher.CensusEntry {
		return launcher.CensusEntry{Name: name, Status: launcher.StatusAlive, SpecPath: spec, Worker: verify.Fingerprint{Pid: pid, UID: euid, Comm: "srv-" + name},
			Started: now.Add(-75 * time.Second), Round: 2, Ports: port}
	}
	api, worker := entry("api", "/srv/app/childproof.hcl", 4301), entry("worker", "/srv/app/childproof.hcl", 4302)
	db := entry("db", "/opt/db/childproof.hcl", 88)
	db.Status, db.Started, db.Round, db.Ports = launcher.StatusGone, time.Time{}, 0, nil
	loose := entry("loose", "", 7)
	loose.Worker.UID = 0
	const header = "NAME                 STATUS      PID      COMM             AGE        ROUND PORTS"
	for _, c := range []struct {
		name string
		es   []launcher.CensusEntry
		dir  string
		want []string
	}{
		{"one spec file", []launcher.CensusEntry{worker, api}, "/srv/app", []string{
			header,
			"worker               alive       4302     srv-worker       1m15s      2     127.0.0.1:8080 worker",
			"api                  alive       4301     srv-api          1m15s      2     127.0.0.1:8080 worker"}},
		{"several spec files", []launcher.CensusEntry{worker, db, loose, api}, "/srv/app", []string{
			header,
			"# (no spec file)",
			"loose                alive       7        srv-loose        1m15s      2     127.0.0.1:8080 worker (as root, uid 0)",
			"# /opt/db/childproof.hcl",
			"db                   gone        88       srv-db           -          -     ",
			"# childproof.hcl",
			"worker               alive       4302     srv-worker       1m15s      2     127.0.0.1:8080 worker",
			"api                  alive       4301     srv-api          1m15s      2     127.0.0.1:8080 worker"}},
		{"paths as recorded", []launcher.CensusEntry{db, api}, "", []string{
			header,
			"# /opt/db/childproof.hcl",
			"db                   gone        88       srv-db           -          -     ",
			"# /srv/app/childproof.hcl",
			"api                  alive       4301     srv-api          1m15s      2     127.0.0.1:8080 worker"}},
		{"none", nil, "", []string{header}},
	} {
		t.Run(c.name, func(t *testing.T) {
			before := make([]string, len(c.es))
			for i, e := range c.es {
				before[i] = e.Name
			}
			var b bytes.Buffer
			present.WriteCensus(&b, c.es, present.CensusText{Dir: c.dir, Euid: euid, Now: now})
			if diff := cmp.Diff(strings.Join(c.want, "\n")+"\n", b.String()); diff != "" {
				t.Errorf("WriteCensus (-want +got):\n%s", diff)
			}
			for i, e := range c.es {
				if e.Name != before[i] {
					t.Errorf("WriteCensus reordered es: entry %d is %s, was %s", i, e.Name, before[i])
				}
			}
		})
	}
}

// TestCensusOutput: ps's JSON object is {"launches": [...]}, [] for no
// entry.
func TestCensusOutput(t *testing.T) {
	for _, c := range []struct {
		es   []launcher.CensusEntry
		want string
	}{
		{nil, `{"launches":[]}`},
		{[]launcher.CensusEntry{}, `{"launches":[]}`},
	} {
		if got, err := json.Marshal(present.NewCensusOutput(c.es)); err != nil || string(got) != c.want {
			t.Errorf("NewCensusOutput(%#v): %s, %v; want %s", c.es, got, err, c.want)
		}
	}
	es := []launcher.CensusEntry{{Name: "api", Status: launcher.StatusAlive}}
	got, err := json.Marshal(present.NewCensusOutput(es))
	if err != nil {
		t.Fatal(err)
	}
	want, err := json.Marshal(map[string]any{"launches": es})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("JSON (-want +got):\n%s", diff)
	}
}
