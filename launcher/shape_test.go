package launcher

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/childproof/childproof/verify"
)

var updateShapes = flag.Bool("update-shapes", false, "rewrite testdata/*.golden.json from the values in TestFileShapes")

// shapeValues are a Record, a Round and a CensusEntry with every field
// set, so that the file formats (records, rounds) and ps's JSON show each
// key in its place.
func shapeValues() map[string]any {
	at := time.Date(2026, 1, 2, 3, 4, 5, 6, time.UTC)
	code, status := 3, 143
	fp := verify.Fingerprint{Pid: 42, StartTime: 1234, UID: 1000, Exe: "/usr/bin/srv", Comm: "srv", PidfsInode: 99}
	val := "v"
	ov := Override{Name: "MODE", Value: &val, Digest: "hmac-sha256:m", Secret: true, Round: 2}
	rec := &Record{}
	rec.Name, rec.SpecPath, rec.SpecHash, rec.Argv, rec.Dir = "srv", "/spec.hcl", "sha256:s", []string{"srv", "--port", "1"}, "/d"
	rec.Started, rec.Detached, rec.Supervisor = at, true, 7
	rec.Root, rec.Worker, rec.Pgid, rec.Cgroup = fp, fp, 41, "/sys/fs/cgroup/cp"
	rec.Ports = []RecordPort{{Number: 1, Address: "127.0.0.1"}}
	rec.Env, rec.WorkerEnv, rec.ExecEnv, rec.ExecExe = map[string]string{"A": "d"}, map[string]string{"B": "d"}, map[string]string{"C": "d"}, "/usr/bin/srv"
	rec.ExecArea = "7ffd1000-7ffd1100"
	rec.Log, rec.Stopped, rec.Pending, rec.Restarts, rec.LastExit = "/l", &at, true, 2, &code
	rec.Secrets, rec.Round, rec.MAC = []RecordSecret{{Name: "K", Digest: "d"}}, 3, "mac"
	round := &Round{}
	round.N, round.Name, round.Command, round.Started, round.SpecHash, round.Baseline, round.ReplayOf = 3, "srv", "relaunch", at, "sha256:s", 2, 1
	round.Delta, round.Overrides = RoundDelta{Set: []Override{ov}, Unset: []string{"OLD"}}, []Override{ov}
	round.Outcome, round.Problems, round.ExitCode = "refused", []verify.Kind{verify.KindDelta}, 3
	round.Worker, round.WorkerEnv, round.Log, round.MAC = &fp, map[string]string{"B": "d"}, "/r.log", "mac"
	round.End = &RoundEnd{At: at, How: "signaled", ExitStatus: &status, Signal: "SIGTERM", StoppedBy: "childproof stop", UptimeSeconds: 1.5, UptimeAtMost: true, Seen: "stop", LastLines: 2, TailDigest: "t", Log: "/e.log"}
	ce := CensusEntry{}
	ce.Name, ce.Status, ce.Worker, ce.Started, ce.Detached = "srv", "alive", fp, at, true
	ce.Ports = []CensusPort{{Number: 1, Address: "127.0.0.1", Holder: "worker", HolderPid: 42}}
	ce.Log, ce.SpecPath, ce.Pending, ce.Restarts, ce.LastExit, ce.Error, ce.Round = "/l", "/spec.hcl", true, 2, &code, "e", 3
	return map[string]any{"record": rec, "round": round, "census": ce}
}

// TestFileShapes: the record and round files and ps's JSON keep their
// bytes — every key, in order — whatever the Go types are grouped into;
// and a file decodes into the same value (a round trip rewrites it byte
// for byte, which the MAC over the canonical JSON needs).
func TestFileShapes(t *testing.T) {
	for name, v := range shapeValues() {
		got, err := json.MarshalIndent(v, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join("testdata", name+".golden.json")
		if *updateShapes {
			os.WriteFile(path, append(got, '\n'), 0o644)
		}
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(append(got, '\n'), want) {
			t.Errorf("%s: JSON changed:\n%s\nwant:\n%s", name, got, want)
		}
		var back any
		switch v.(type) {
		case *Record:
			back = &Record{}
		case *Round:
			back = &Round{}
		case CensusEntry:
			back = &CensusEntry{}
		}
		if err := json.Unmarshal(want, back); err != nil {
			t.Fatal(err)
		}
		again, _ := json.MarshalIndent(back, "", "  ")
		if !bytes.Equal(append(again, '\n'), want) {
			t.Errorf("%s: a round trip changed it:\n%s", name, again)
		}
	}
}
