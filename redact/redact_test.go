package redact

import (
	"bytes"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestArgv(t *testing.T) {
	s := &Set{}
	s.add("API_KEY", "s3cr3t-canary")
	s.add("PIN", "1234")
	s.add("TOKEN", "tok-line-one\ntok-line-two\n")
	s.addMatcher("REMOTE", func(v string) bool { return v == "remote-value" })
	tests := []struct {
		name string
		in   []string
		want []string
	}{
		{"equal", []string{"srv", "--key", "s3cr3t-canary"}, []string{"srv", "--key", "<API_KEY>"}},
		{"contains", []string{"--key=s3cr3t-canary", "x"}, []string{"--key=<API_KEY>", "x"}},
		{"short equal is left", []string{"--pin", "1234"}, []string{"--pin", "1234"}},
		{"short inside is left", []string{"--port=12345"}, []string{"--port=12345"}},
		{"file whole", []string{"tok-line-one\ntok-line-two\n"}, []string{"<TOKEN>"}},
		{"file line", []string{"--t=tok-line-two"}, []string{"--t=<TOKEN>"}},
		{"matcher equal", []string{"remote-value"}, []string{"<REMOTE>"}},
		{"matcher after =", []string{"--r=remote-value"}, []string{"--r=<REMOTE>"}},
		{"empty", []string{""}, []string{""}},
		{"nil", nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, s.Argv(tt.in)); diff != "" {
				t.Errorf("Argv (-want +got):\n%s", diff)
			}
		})
	}
}

func TestTextLongestFirst(t *testing.T) {
	s := &Set{}
	s.add("SHORT", "abcdef")
	s.add("LONG", "abcdefghij")
	if got, want := s.Text("x abcdefghij y abcdef"), "x <LONG> y <SHORT>"; got != want {
		t.Errorf("Text = %q, want %q", got, want)
	}
}

func TestNilSet(t *testing.T) {
	var s *Set
	if got := s.Text("abcdefgh"); got != "abcdefgh" {
		t.Errorf("nil Text = %q", got)
	}
	if got := s.Arg("abcdefgh"); got != "abcdefgh" {
		t.Errorf("nil Arg = %q", got)
	}
	if !s.Empty() {
		t.Error("nil set not empty")
	}
	s.add("X", "y") // must not panic
}

func TestFirstNameWins(t *testing.T) {
	s := &Set{}
	s.add("A", "same-value")
	s.add("B", "same-value")
	if got := s.Arg("same-value"); got != "<A>" {
		t.Errorf("Arg = %q, want <A>", got)
	}
	if diff := cmp.Diff([]string{"A"}, s.Names()); diff != "" {
		t.Errorf("Names (-want +got):\n%s", diff)
	}
}

func TestWriter(t *testing.T) {
	s := &Set{}
	s.add("K", "canary-value")
	var b bytes.Buffer
	w := s.Writer(&b)
	for _, chunk := range []string{"line one canary-", "value\nsecond line ", "canary-val", "ue and no newline"} {
		if _, err := w.Write([]byte(chunk)); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	want := "line one <K>\nsecond line <K> and no newline"
	if b.String() != want {
		t.Errorf("Writer wrote %q, want %q", b.String(), want)
	}
}

func TestWriterLongLine(t *testing.T) {
	s := &Set{}
	s.add("K", "canary-value")
	var b bytes.Buffer
	w := s.Writer(&b)
	long := strings.Repeat("x", maxPending) + "canary-value"
	w.Write([]byte(long))
	w.Close()
	if strings.Contains(b.String(), "canary-value") {
		t.Error("long line leaked the value")
	}
}

func FuzzText(f *testing.F) {
	f.Add("secret-value", "a secret-value b", "OTHER", "secret")
	f.Add("abcdefgh", "abcdefghabcdefgh", "defghabc", "x")
	f.Fuzz(func(t *testing.T, v1, text, v2, v3 string) {
		s := &Set{}
		s.add("A", v1)
		s.add("B", v2)
		s.add("C", v3)
		out := s.Text(text)
		arg := s.Arg(text)
		for _, v := range []string{v1, v2, v3} {
			if len(v) < MinLen || strings.ContainsAny(v, "<>") {
				continue
			}
			if strings.Contains(out, v) {
				t.Fatalf("Text(%q) = %q still holds %q", text, out, v)
			}
			if strings.Contains(arg, v) {
				t.Fatalf("Arg(%q) = %q still holds %q", text, arg, v)
			}
		}
	})
}

func TestExactAndMatcherText(t *testing.T) {
	s := &Set{}
	s.addExact("W", "4")
	s.addMatcher("REMOTE", func(v string) bool { return v == "remote-value" })
	if diff := cmp.Diff([]string{"srv", "<W>", "14"}, s.Argv([]string{"srv", "4", "14"})); diff != "" {
		t.Errorf("Argv (-want +got):\n%s", diff)
	}
	if got, want := s.Text(`key="remote-value" other=remote-value-x 4`), `key="<REMOTE>" other=remote-value-x 4`; got != want {
		t.Errorf("Text = %q, want %q", got, want)
	}
	s2 := Of([]Secret{{Name: "W", Value: "4", Exact: true}, {Name: "K", Value: " spaced-value\n"}}, nil)
	if diff := cmp.Diff([]Secret{{Name: "W", Value: "4", Exact: true}, {Name: "K", Value: " spaced-value\n"}}, s2.Secrets()); diff != "" {
		t.Errorf("Secrets (-want +got):\n%s", diff)
	}
	m := Union(nil, s2)
	if got := m.Arg("4"); got != "<W>" {
		t.Errorf("union exact: Arg = %q", got)
	}
	if got := m.Text("x spaced-value y"); got != "x<K> y" { // its line, with the space
		t.Errorf("union trimmed: Text = %q", got)
	}
}

// TestOfDigest: a secret known by its digest only masks the words and
// argv elements equal to its value, and the argv elements of the shape of
// its recorded occurrences — not other elements that hold its
// placeholder's text.
func TestOfDigest(t *testing.T) {
	values := map[string]string{"K": "the-k-value", "L": "l-value"}
	digest := func(name, v string) string { return name + ":" + strings.ToUpper(v) }
	d := func(name string) string { return digest(name, values[name]) }
	s := Of([]Secret{
		{Name: "K", Digest: d("K"), Occurs: []Occurrence{{Part: "argv[1]", Shown: "pre.<K>.post"}, {Part: "argv[2]", Shown: "<K>:<L>@host"}, {Part: "env[URL]"}}},
		{Name: "L", Digest: d("L"), Occurs: []Occurrence{{Part: "argv[2]", Shown: "<K>:<L>@host"}}},
	}, digest)
	got := s.Argv([]string{"srv", "pre.the-k-value.post", "the-k-value:l-value@host", "the-k-value", "--k=the-k-value", "pre.other.post"})
	want := []string{"srv", "pre.<K>.post", "<K>:<L>@host", "<K>", "--k=<K>", "pre.other.post"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Argv (-want +got):\n%s", diff)
	}
	if got, want := s.Text("got the-k-value and l-value"), "got <K> and <L>"; got != want {
		t.Errorf("Text = %q, want %q", got, want)
	}
	if Of(s.Secrets(), nil).Arg("the-k-value") != "the-k-value" {
		t.Error("without a digest function a digest-only secret masked something")
	}
}

// TestShape: an argv element built from a secret whose value this
// command does not know is recognised by its recorded shape and the
// digest of its secret part, in argv and in text.
func TestShape(t *testing.T) {
	s := &Set{}
	digest := map[string]string{"K": "the-k-value", "L": "l-value"}
	test := func(name, v string) bool { return digest[name] == v }
	s.addShape("pre.<K>.post", []string{"K", "L"}, test)
	s.addShape("<K>:<L>@host", []string{"K", "L"}, test)
	s.addShape("--plain", []string{"K"}, test) // no placeholder: ignored
	tests := []struct{ in, want string }{
		{"pre.the-k-value.post", "pre.<K>.post"},
		{"pre.other-value.post", "pre.other-value.post"}, // another value: not this secret
		{"pre..post", "pre..post"},
		{"the-k-value:l-value@host", "<K>:<L>@host"},
		{"the-k-value:wrong@host", "the-k-value:wrong@host"},
		{"--plain", "--plain"},
	}
	for _, tt := range tests {
		if got := s.Arg(tt.in); got != tt.want {
			t.Errorf("Arg(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
	if got, want := s.Text(`argv "pre.the-k-value.post" x`), `argv "<K>" x`; got == want || got != `argv "pre.<K>.post" x` {
		t.Errorf("Text = %q", got)
	}
}
