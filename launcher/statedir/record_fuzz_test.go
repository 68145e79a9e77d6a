package statedir

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// FuzzRecord reads arbitrary record files, authenticated and not. A record
// is accepted only with a MAC that verifies under the state key; a record
// childproof sealed is always accepted and reads back the same.
func FuzzRecord(f *testing.F) {
	dir := f.TempDir()
	os.WriteFile(filepath.Join(dir, "key"), []byte(strings.Repeat("5a", 32)), 0o600)
	st, err := Open(dir)
	if err != nil {
		f.Fatal(err)
	}
	sealed := &Record{Name: "a", Argv: []string{"srv", "\xff<K>"}, Env: map[string]string{"K": "hmac-sha256:00"}, Cgroup: "/sys/fs/cgroup/childproof-a-0123abcd"}
	b, _ := st.seal(sealed)
	f.Add(b, false)
	f.Add(b, true)
	f.Add(sealV1(f, st, sealed), false)
	f.Add([]byte(`{"name":"a","mac":"hmac-sha256:00"}`), false)
	f.Add([]byte(`{"name":"a","argv":["x"],"worker":{"pid":1}}`), true)
	f.Add([]byte(`{"name":"a","name":"b"}`), false)
	f.Fuzz(func(t *testing.T, data []byte, seal bool) {
		if seal {
			var r Record
			if json.Unmarshal(data, &r) != nil {
				return
			}
			r.Name = "a"
			// Sealing without the decode round trip gives the bytes the
			// round trip gives.
			c := r
			c.MAC = ""
			line, sumLine, err1 := sealedLines(&c, false)
			wantRec, wantSum, err2 := sealedLines(&c, true)
			if (err1 == nil) != (err2 == nil) || !bytes.Equal(line, wantRec) || !bytes.Equal(sumLine, wantSum) {
				t.Fatalf("sealed lines without the round trip differ (%v, %v):\n%s\n%s\n%s\n%s", err1, err2, line, wantRec, sumLine, wantSum)
			}
			// Sealing once into a reused buffer gives the file and MAC
			// that marshalling line by line gives.
			lr := r
			want, _, werr := st.sealSettledRoundTrip(&lr)
			out, err := st.seal(&r)
			if (err == nil) != (werr == nil) || !bytes.Equal(out, want) || r.MAC != lr.MAC {
				t.Fatalf("sealed once (%v):\n%s\nline by line (%v):\n%s", err, out, werr, want)
			}
			if err != nil {
				return
			}
			got, err := st.parseRecord("a", "a.json", out)
			if err != nil {
				t.Fatalf("a sealed record is refused: %v\n%s", err, out)
			}
			again, _ := st.seal(got)
			if !bytes.Equal(out, again) {
				t.Fatalf("a sealed record reads back different:\n%s\n%s", out, again)
			}
			sum, err := st.parseSummary("a", "a.json", out, nil)
			if err != nil {
				t.Fatalf("a sealed record's summary is refused: %v\n%s", err, out)
			}
			if d := cmp.Diff(summarize(got), sum); d != "" {
				t.Fatalf("summary line disagrees with the record (-record +summary):\n%s", d)
			}
			return
		}
		_, rerr := st.parseRecord("a", "a.json", data)
		_, serr := st.parseSummary("a", "a.json", data, nil)
		if (rerr == nil || serr == nil) && !verifiesV1(st, data) && !verifiesV2(st, data) {
			t.Fatalf("accepted a record whose MAC does not verify: %s", data)
		}
	})
}
