package mask

import (
	"slices"
	"testing"

	"github.com/childproof/childproof/launcher/statedir"
	"github.com/childproof/childproof/redact"
	"github.com/childproof/childproof/spec"
	"github.com/childproof/childproof/verify"
	"github.com/google/go-cmp/cmp"
)

// TestSecretSetOccurs: the launch's secret set carries, for each secret,
// its digest and the argv elements and env values built from it; the
// record keeps the digests and occurrences (never a value), and a command
// without the values masks an element of a recorded shape by them — only
// at the recorded occurrences, not every element that holds a
// placeholder's text.
func TestSecretSetOccurs(t *testing.T) {
	st, err := statedir.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	const key, pin = "the-api-key-canary", "42"
	l := &spec.Launch{Name: "occ", Command: []string{"srv", "--key=pre." + key + ".post", pin, "<API_KEY>"},
		Secret: []string{"TOKEN"}, SecretValues: []redact.Secret{{Name: "API_KEY", Value: key}, {Name: "PIN", Value: pin}},
		Sensitive: map[string]bool{"command[2]": true}}
	vars := map[string]string{"TOKEN": "token-canary-value", "URL": "https://u:" + key + "@h", "PLAIN": "x"}
	set := SecretSet(l, vars, nil, l.Command, st.Digest)
	occurs := map[string][]string{}
	for _, sec := range set.Secrets() {
		if sec.Digest != st.Digest(sec.Name, sec.Value) {
			t.Errorf("%s: digest %q, want the state's keyed digest", sec.Name, sec.Digest)
		}
		for _, o := range sec.Occurs {
			occurs[sec.Name] = append(occurs[sec.Name], o.Part+"="+o.Shown)
		}
	}
	want := map[string][]string{
		"API_KEY": {"argv[1]=--key=pre.<API_KEY>.post", "env[URL]="},
		"PIN":     {"argv[2]=<PIN>"},
		"TOKEN":   {"env[TOKEN]="},
	}
	if diff := cmp.Diff(want, occurs); diff != "" {
		t.Errorf("occurrences (-want +got):\n%s", diff)
	}
	rec := &statedir.Record{Name: "occ", Argv: set.Argv(l.Command), Secrets: st.SecretDigests(set)}
	for _, rs := range rec.Secrets {
		if rs.Digest == "" || rs.Name == "" {
			t.Errorf("recorded secret %+v", rs)
		}
	}
	m := Of(st, Known{Record: rec})
	got := m.Argv([]string{"srv", "--key=pre." + key + ".post", pin, "<API_KEY>", "--other=pre." + key + ".post"})
	// The short PIN is masked at its recorded occurrence (its shape is the
	// whole element). The last element is of no recorded shape and its
	// secret is no word of its own: a command without the value cannot
	// tell, and the worker's argv, which the record describes, has no
	// such element.
	wantArgv := []string{"srv", "--key=pre.<API_KEY>.post", "<PIN>", "<API_KEY>", "--other=pre." + key + ".post"}
	if diff := cmp.Diff(wantArgv, got); diff != "" {
		t.Errorf("masked by the record (-want +got):\n%s", diff)
	}

	// A record of an older childproof stored no occurrences: its argv's
	// placeholders stand in for them.
	legacy := *rec
	legacy.Secrets = nil
	for _, rs := range rec.Secrets {
		legacy.Secrets = append(legacy.Secrets, statedir.RecordSecret{Name: rs.Name, Digest: rs.Digest})
	}
	if got := Of(st, Known{Record: &legacy}).Arg("--key=pre." + key + ".post"); got != "--key=pre.<API_KEY>.post" {
		t.Errorf("legacy record: Arg = %q", got)
	}
}

// TestMaskPidReport: a --pid report is masked by the records whose root
// or worker is the pid asked, a process of the report's chain or its
// worker — and by no other record.
func TestMaskPidReport(t *testing.T) {
	st, err := statedir.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	const key = "the-api-key-canary"
	l := &spec.Launch{Name: "api", Command: []string{"srv", "--key=" + key},
		SecretValues: []redact.Secret{{Name: "API_KEY", Value: key}}}
	set := SecretSet(l, nil, nil, l.Command, st.Digest)
	rec := &statedir.Record{Name: "api", Argv: set.Argv(l.Command), Secrets: st.SecretDigests(set),
		Root: verify.Fingerprint{Pid: 1000}, Worker: verify.Fingerprint{Pid: 1001}, Round: 1}
	if err := st.Save(rec); err != nil {
		t.Fatal(err)
	}
	// Another launch's record: its secret is not this report's to mask.
	other := &spec.Launch{Name: "db", Command: []string{"db", "--pw=the-db-canary"},
		SecretValues: []redact.Secret{{Name: "PW", Value: "the-db-canary"}}}
	oset := SecretSet(other, nil, nil, other.Command, st.Digest)
	if err := st.Save(&statedir.Record{Name: "db", Argv: oset.Argv(other.Command), Secrets: st.SecretDigests(oset),
		Root: verify.Fingerprint{Pid: 2000}, Worker: verify.Fingerprint{Pid: 2001}, Round: 1}); err != nil {
		t.Fatal(err)
	}
	masked := []string{"srv", "--key=<API_KEY>"}
	tests := []struct {
		name   string
		pid    int
		chain  []int
		worker int // 0: none
		want   []string
	}{
		{"pid is the record's root", 1000, []int{1000}, 0, masked},
		{"the chain holds the record's root", 7, []int{7, 1000}, 0, masked},
		{"the worker is the record's worker", 7, []int{7}, 1001, masked},
		{"no record of these pids", 7, []int{7, 8}, 9, l.Command},
		{"only another launch's record", 2000, []int{2000}, 2001, l.Command},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := verify.NewReport("pid")
			for _, p := range tc.chain {
				r.Chain = append(r.Chain, verify.ChainEntry{Pid: p, Argv: slices.Clone(l.Command)})
			}
			if tc.worker != 0 {
				r.Worker = &verify.WorkerInfo{Pid: tc.worker}
			}
			PidReport(st, tc.pid, r)
			for _, c := range r.Chain {
				if diff := cmp.Diff(tc.want, c.Argv); diff != "" {
					t.Errorf("chain pid %d argv (-want +got):\n%s", c.Pid, diff)
				}
			}
		})
	}
	PidReport(st, 1000, nil) // nothing to mask
}
