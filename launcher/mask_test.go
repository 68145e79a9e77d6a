package launcher

import (
	"testing"

	"github.com/childproof/childproof/redact"
	"github.com/childproof/childproof/schema"
	"github.com/google/go-cmp/cmp"
)

// TestSecretSetOccurs: the launch's secret set carries, for each secret,
// its digest and the argv elements and env values built from it; the
// record keeps the digests and occurrences (never a value), and a command
// without the values masks an element of a recorded shape by them — only
// at the recorded occurrences, not every element that holds a
// placeholder's text.
func TestSecretSetOccurs(t *testing.T) {
	st, err := OpenState(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	const key, pin = "the-api-key-canary", "42"
	l := &schema.Launch{Name: "occ", Command: []string{"srv", "--key=pre." + key + ".post", pin, "<API_KEY>"},
		Secret: []string{"TOKEN"}, SecretValues: []redact.Secret{{Name: "API_KEY", Value: key}, {Name: "PIN", Value: pin}},
		Sensitive: map[string]bool{"command[2]": true}}
	vars := map[string]string{"TOKEN": "token-canary-value", "URL": "https://u:" + key + "@h", "PLAIN": "x"}
	set := secretSet(l, vars, nil, l.Command, st.Digest)
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
	rec := &Record{Name: "occ", Argv: set.Argv(l.Command), Secrets: st.secretDigests(set)}
	for _, rs := range rec.Secrets {
		if rs.Digest == "" || rs.Name == "" {
			t.Errorf("recorded secret %+v", rs)
		}
	}
	m := st.Secrets(Known{Record: rec})
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
		legacy.Secrets = append(legacy.Secrets, RecordSecret{Name: rs.Name, Digest: rs.Digest})
	}
	if got := st.Secrets(Known{Record: &legacy}).Arg("--key=pre." + key + ".post"); got != "--key=pre.<API_KEY>.post" {
		t.Errorf("legacy record: Arg = %q", got)
	}
}
