package verify

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"
)

var updateShapes = flag.Bool("update-shapes", false, "rewrite testdata/report.golden.json")

// TestReportShape: the documented JSON of run and verify keeps its bytes —
// every key, in order — whatever the Go type is grouped into, and decodes
// back into the same value.
func TestReportShape(t *testing.T) {
	val := "v"
	r := NewReport("srv")
	r.Verified, r.ExitCode, r.Ready, r.Attempts = false, 3, true, 2
	r.Worker = &WorkerInfo{Pid: 42, Comm: "srv", Exe: "/usr/bin/srv", StartTime: 1234, UID: 1000}
	r.Chain = []ChainEntry{{Pid: 41, Comm: "bash", Argv: []string{"bash", "--noprofile", "--norc", "d.sh"}}}
	r.Env = []EnvCheck{{Name: "K", Present: true, Matches: ptr(false), Digest: "hmac-sha256:k", Value: &val}}
	r.Ports = []PortCheck{{Number: 1, Address: "127.0.0.1", OwnerPid: 42, Owned: true}, {Number: 2, Address: "::1"}}
	r.Port = &r.Ports[0]
	r.Add(KindEnvMismatch, "K differs")
	r.Log, r.Tail = "/l", []string{"a", "b"}
	r.EnvEvidence, r.EnvNote = EvidenceExec, "note"
	got, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join("testdata", "report.golden.json")
	if *updateShapes {
		os.WriteFile(path, append(got, '\n'), 0o644)
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(append(got, '\n'), want) {
		t.Errorf("JSON changed:\n%s\nwant:\n%s", got, want)
	}
	var back Report
	if err := json.Unmarshal(want, &back); err != nil {
		t.Fatal(err)
	}
	again, _ := json.MarshalIndent(&back, "", "  ")
	if !bytes.Equal(append(again, '\n'), want) {
		t.Errorf("a round trip changed it:\n%s", again)
	}
}
