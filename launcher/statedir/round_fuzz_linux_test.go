package statedir

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// FuzzRound reads arbitrary round files, authenticated and not. A round is
// accepted only with a MAC that verifies under the state key and only as
// the round and launch it names; a round childproof sealed is always
// accepted and reads back the same.
func FuzzRound(f *testing.F) {
	dir := f.TempDir()
	os.WriteFile(filepath.Join(dir, "key"), []byte(strings.Repeat("5a", 32)), 0o600)
	st, err := Open(dir)
	if err != nil {
		f.Fatal(err)
	}
	v := "1"
	sealed := &Round{
		N:       3,
		Name:    "a",
		Command: "relaunch", Started: time.Unix(1, 0).UTC(),
		Outcome:   "verified",
		Overrides: []Override{{Name: "A", Value: &v, Digest: "hmac-sha256:00", Round: 2}, {Name: "K", Digest: "hmac-sha256:01", Secret: true, Round: 3}},
		End:       &RoundEnd{How: "signaled", Signal: "SIGKILL", UptimeSeconds: 1.5, Seen: "supervisor"},
	}
	b, _ := st.sealRound(sealed)
	f.Add(b, false)
	f.Add(b, true)
	f.Add([]byte(`{"round":3,"name":"a","mac":"hmac-sha256:00"}`), false)
	f.Add([]byte(`{"round":3,"name":"a","overrides":[{"name":"A","value":"\xff"}]}`), true)
	f.Add([]byte(`{"round":3,"round":4,"name":"a"}`), false)
	f.Fuzz(func(t *testing.T, data []byte, seal bool) {
		if seal {
			var r Round
			if json.Unmarshal(data, &r) != nil {
				return
			}
			r.N, r.Name = 3, "a"
			// The JSON MACed without the decode round trip is the JSON
			// the round trip gives.
			c := r
			c.MAC = ""
			b, err1 := roundJSON(&c, false)
			want, err2 := roundJSON(&c, true)
			if (err1 == nil) != (err2 == nil) || !bytes.Equal(b, want) {
				t.Fatalf("round JSON without the round trip differs (%v, %v):\n%s\n%s", err1, err2, b, want)
			}
			out, err := st.sealRound(&r)
			if err != nil {
				return
			}
			got, err := st.parseRound("a", 3, out)
			if err != nil {
				t.Fatalf("a sealed round is refused: %v\n%s", err, out)
			}
			again, _ := st.sealRound(got)
			if !bytes.Equal(out, again) {
				t.Fatalf("a sealed round reads back different:\n%s\n%s", out, again)
			}
			return
		}
		r, err := st.parseRound("a", 3, data)
		if err != nil {
			return
		}
		if r.N != 3 || r.Name != "a" {
			t.Fatalf("accepted round %d of %q as round 3 of a", r.N, r.Name)
		}
		want, err := st.roundMAC(r)
		if err != nil || want != r.MAC {
			t.Fatalf("accepted a round whose MAC does not verify: %s", data)
		}
	})
}
