package statedir

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"github.com/childproof/childproof/verify"
)

// summarySeeds are summary lines as childproof writes them, and shapes
// the scanner leaves to encoding/json.
func summarySeeds(tb testing.TB) [][]byte {
	exit := 3
	stopped := time.Date(2026, 12, 2, 7, 6, 59, 513948185, time.UTC)
	fp := verify.Fingerprint{Pid: 12089, StartTime: 57411, UID: 1000, Exe: "/srv/bin/api", Comm: "api", PidfsInode: 44555}
	var out [][]byte
	for _, s := range []Summary{
		{},
		{Name: "launch-0000", Started: stopped, Detached: true, Worker: fp, Ports: []RecordPort{{Number: 43473, Address: "127.0.0.1"}}, RootPid: 12089},
		{Name: "ünï-cødé name", SpecPath: "/etc/app/childproof.hcl", Started: stopped.In(time.FixedZone("x", 3600)), Worker: fp, Cgroup: "/sys/fs/cgroup/childproof/a", Marker: "a.0123",
			Ports: []RecordPort{{Number: 1, Address: "::"}, {Number: 65535, Address: "0.0.0.0"}}, Log: "/var/log/a.log", Stopped: &stopped, Pending: true,
			Restarts: 7, LastExit: &exit, Round: 12, Workers: 4, Relay: &verify.Fingerprint{Pid: 5, StartTime: 6, Comm: "childproof-log"}},
		{Name: "quote\"and\\slash", Ports: []RecordPort{}, Log: "tab\there"},
	} {
		b, err := json.Marshal(s)
		if err != nil {
			tb.Fatal(err)
		}
		out = append(out, b)
	}
	for _, s := range []string{
		`{"name":"a","Name":"b"}`, `{"name":"a","extra":1}`, `{"restarts":1.5}`, `{"restarts":1e3}`, `{"restarts":-0}`,
		`{"restarts":01}`, `{"restarts":99999999999999999999}`, `{"worker":{"start_time":-1}}`, `{"worker":null,"relay":null,"stopped":null,"last_exit":null,"ports":null}`,
		`{"name":null,"detached":null,"started":null}`, `{"started":"not a time"}`, `{"name":"a"} x`, `{"name":"a",}`, `{"name":"\u00e9"}`,
		"{\"name\":\"\xff\"}", "{\"name\":\"a\x01\"}", ` { "name" : "a" , "ports" : [ { "number" : 1 } ] } `, `{"ports":[{"number":1},]}`,
		`{"ports":[]}`, `{"detached":tru}`, `{"name":"a","name":"b"}`, `[]`, ``, `null`, `{"relay":{"pid":1},"relay":{"uid":2}}`,
	} {
		out = append(out, []byte(s))
	}
	return out
}

// FuzzDecodeSummary: decodeSummary decodes what json.Unmarshal decodes,
// to the same value, and fails where it fails.
func FuzzDecodeSummary(f *testing.F) {
	for _, b := range summarySeeds(f) {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var got, want Summary
		gerr := decodeSummary(b, &got)
		werr := json.Unmarshal(b, &want)
		if (gerr == nil) != (werr == nil) {
			t.Fatalf("%q: decodeSummary error %v, json.Unmarshal error %v", b, gerr, werr)
		}
		if werr == nil && !reflect.DeepEqual(got, want) {
			t.Fatalf("%q:\ndecodeSummary %+v\njson.Unmarshal %+v", b, got, want)
		}
	})
}

// TestDecodeSummaryFastPath: the lines childproof writes take the scanner,
// not the fallback.
func TestDecodeSummaryFastPath(t *testing.T) {
	for _, b := range summarySeeds(t)[:3] {
		var s Summary
		if p := (sumScanner{b: b}); !p.summary(&s) {
			t.Errorf("%s: left to encoding/json", b)
		}
	}
}
