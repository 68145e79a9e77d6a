package statedir

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io/fs"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/childproof/childproof/redact"
	"github.com/childproof/childproof/verify"
)

// TestSealOnceBytes: sealRound and SaveLogMaskFor marshal once and add
// the MAC to that JSON; their files are byte for byte what marshalling
// the sealed value again wrote before.
func TestSealOnceBytes(t *testing.T) {
	st, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	v, bad, code := "1", "a\xffb", 3
	rounds := []*Round{
		{N: 1, Name: "a"},
		{N: 2, Name: "a<b>&c", Command: CommandRelaunch, Started: time.Date(2026, 12, 1, 6, 0, 0, 5, time.UTC), Outcome: RoundVerified,
			Delta:     RoundDelta{Set: []Override{{Name: "A", Value: &v, Digest: "hmac-sha256:00", Round: 2}}, Unset: []string{}},
			Overrides: []Override{{Name: "A", Value: &v, Digest: "hmac-sha256:00", Round: 2}, {Name: "K", Digest: "hmac-sha256:01", Secret: true, Round: 1}},
			Worker:    &verify.Fingerprint{Pid: 7, Exe: "/bin/x", Comm: "x"}, WorkerEnv: map[string]string{"B": "d2", "A": "d1"},
			End: &RoundEnd{How: EndExited, ExitStatus: &code, UptimeSeconds: 1.25, Seen: SeenSupervisor, TailDigest: "hmac-sha256:02"}},
		{N: 3, Name: "a", Overrides: []Override{{Name: "A", Value: &bad, Digest: "hmac-sha256:00", Round: 3}}},
		{N: 4, Name: "a", MAC: "hmac-sha256:stale"},
	}
	for _, r := range rounds {
		c := *r
		got, err := st.sealRound(&c)
		if err != nil {
			t.Fatal(err)
		}
		want := c
		mac, err := st.roundMAC(&want)
		if err != nil {
			t.Fatal(err)
		}
		want.MAC = mac
		wb, _ := json.MarshalIndent(&want, "", "  ")
		if diff := cmp.Diff(string(append(wb, '\n')), string(got)); diff != "" {
			t.Errorf("round %d file (-marshalled again +sealed once):\n%s", r.N, diff)
		}
		if c.MAC != mac {
			t.Errorf("round %d: MAC %s, want %s", r.N, c.MAC, mac)
		}
	}

	// A launch without secrets and no earlier mask: nothing is written,
	// and no mask reads as a mask of no secret.
	if err := st.SaveLogMaskFor("m", redact.Of(nil, nil), false); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadFile(st.logMaskPath("m"), MaxRecordSize); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a mask of no secret was written where there was none: %v", err)
	}
	if got := st.LogMaskSecrets("m"); got != nil {
		t.Errorf("LogMaskSecrets without a mask = %v", got)
	}
	// With secrets, then without: the later replaces the earlier mask.
	for _, secrets := range [][]redact.Secret{{{Name: "K", Value: "s3cret"}, {Name: "B<", Value: "x\xff"}}, nil} {
		set := redact.Of(secrets, nil)
		if err := st.SaveLogMaskFor("m", set, false); err != nil {
			t.Fatal(err)
		}
		got, err := ReadFile(st.logMaskPath("m"), MaxRecordSize)
		if err != nil {
			t.Fatal(err)
		}
		m := logMask{Name: "m", Secrets: st.SecretDigests(set)}
		b, _ := json.Marshal(m)
		h := hmac.New(sha256.New, st.RecordKey())
		h.Write([]byte("childproof log mask v1\x00"))
		h.Write(b)
		m.MAC = "hmac-sha256:" + hex.EncodeToString(h.Sum(nil))
		want, _ := json.Marshal(m)
		if diff := cmp.Diff(string(append(want, '\n')), string(got)); diff != "" {
			t.Errorf("log mask (-marshalled again +sealed once):\n%s", diff)
		}
		if len(st.LogMaskSecrets("m")) != len(m.Secrets) {
			t.Errorf("log mask does not read back")
		}
	}
}

// FuzzIndentJSON: indentJSON writes what json.Indent writes of any JSON
// json.Marshal wrote.
func FuzzIndentJSON(f *testing.F) {
	for _, s := range []string{`{}`, `[]`, `{"a":{},"b":[],"c":[{}],"d":[[]]}`, `"x"`, `1`, `null`, `{"q\"u{o}[t],e:":"a\\\"\u003c\n\t\u2028é","n":-1.5e-7,"t":true}`,
		`[1,[2,[3,{"k":[{},{"z":null}]}]],"]"]`, `{"a\\":"\\"}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var v any
		if json.Unmarshal(data, &v) != nil {
			return
		}
		src, err := json.Marshal(v)
		if err != nil {
			return
		}
		var want bytes.Buffer
		if err := json.Indent(&want, src, "", "  "); err != nil {
			t.Fatal(err)
		}
		if got := indentJSON([]byte("pre"), src); string(got) != "pre"+want.String() {
			t.Fatalf("indentJSON(%s):\n%s\nwant\n%s", src, got[3:], want.Bytes())
		}
	})
}
