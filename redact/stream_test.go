package redact

import (
	"bytes"
	"io"
	"math/rand/v2"
	"strings"
	"testing"
)

// streamed writes text to s.Stream in the given chunk sizes (cycled) and
// returns what came out.
func streamed(t *testing.T, s *Set, text string, sizes []int) string {
	t.Helper()
	var b bytes.Buffer
	w := s.Stream(&b)
	for i := 0; len(text) > 0; i++ {
		n := len(text)
		if len(sizes) > 0 {
			n = min(n, max(1, sizes[i%len(sizes)]))
		}
		if got, err := w.Write([]byte(text[:n])); err != nil || got != n {
			t.Fatalf("Write = %d, %v; want %d", got, err, n)
		}
		text = text[n:]
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func TestStream(t *testing.T) {
	s := &Set{}
	s.add("API_KEY", "canary-api-key")
	s.add("SHORT", "abc") // under MinLen: digest-only, never matched in text
	s.add("LONG", "canary-api-key-and-more")
	tests := []struct {
		name, in, want string
		sizes          []int
	}{
		{"whole", "key=canary-api-key!", "key=<API_KEY>!", nil},
		{"inside a word", "xxcanary-api-keyyy", "xx<API_KEY>yy", nil},
		{"in a url", "https://u:canary-api-key@host/db?t=canary-api-key", "https://u:<API_KEY>@host/db?t=<API_KEY>", nil},
		{"split across writes", "a canary-api-key b", "a <API_KEY> b", []int{5, 3, 1}},
		{"byte by byte", "canary-api-key-and-more canary-api-key", "<LONG> <API_KEY>", []int{1}},
		{"longest wins", "canary-api-key-and-more", "<LONG>", []int{16}},
		{"short is left", "abc abc", "abc abc", nil},
		{"prefix at the end", "tail canary-api", "tail canary-api", []int{4}},
		{"no secret", "plain text\n", "plain text\n", []int{2}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := streamed(t, s, tt.in, tt.sizes); got != tt.want {
				t.Errorf("Stream(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

// TestStreamAcrossReadBuffer: a worker line longer than a pipe read (64
// KiB) with the value cut by the read boundary.
func TestStreamAcrossReadBuffer(t *testing.T) {
	s := &Set{}
	s.add("K", "CANARY-across-the-boundary")
	line := strings.Repeat("x", 64<<10-10) + "CANARY-across-the-boundary" + strings.Repeat("y", 64<<10) + "\n"
	got := streamed(t, s, line, []int{64 << 10})
	if strings.Contains(got, "CANARY") {
		t.Fatal("the value cut by the 64 KiB boundary came out")
	}
	if want := strings.Repeat("x", 64<<10-10) + "<K>" + strings.Repeat("y", 64<<10) + "\n"; got != want {
		t.Errorf("output differs from the whole-stream mask (len %d, want %d)", len(got), len(want))
	}
}

func TestStreamEmptySet(t *testing.T) {
	var s *Set
	if got := streamed(t, s, "canary", []int{2}); got != "canary" {
		t.Errorf("nil set Stream = %q", got)
	}
}

// FuzzStream: the sink gives what one replacement over the whole stream
// gives (strings.ReplaceAll for one value; the set's Text for several),
// however the stream is cut.
func FuzzStream(f *testing.F) {
	f.Add("secret-value", "a secret-value b secret-valu", "other-value", uint8(3), uint8(7))
	f.Add("abcdefgh", "abcdefghabcdefgh", "defghabc", uint8(1), uint8(2))
	f.Add("aaaaaa", "aaaaaaaaaaaaa", "aaaaaaa", uint8(5), uint8(1))
	f.Fuzz(func(t *testing.T, v1, text, v2 string, c1, c2 uint8) {
		sizes := []int{int(c1), int(c2)}
		one := &Set{}
		one.add("A", v1)
		if len(v1) >= MinLen && !strings.ContainsAny(v1, "\r\n") && strings.TrimSpace(v1) == v1 {
			if got, want := streamed(t, one, text, sizes), strings.ReplaceAll(text, v1, "<A>"); got != want {
				t.Fatalf("Stream(%q) over %q = %q, ReplaceAll = %q", text, v1, got, want)
			}
		}
		two := &Set{}
		two.add("A", v1)
		two.add("B", v2)
		if got, want := streamed(t, two, text, sizes), two.Text(text); got != want {
			t.Fatalf("Stream(%q) over %q, %q = %q, Text = %q", text, v1, v2, got, want)
		}
	})
}

// BenchmarkStream: worker-like output (log lines) through the sink with
// ten secrets, in 64 KiB writes (a pipe read).
func BenchmarkStream(b *testing.B) {
	s := &Set{}
	for i := range 10 {
		s.add("S"+string(rune('A'+i)), strings.Repeat(string(rune('a'+i)), 3)+"-secret-value-"+string(rune('0'+i)))
	}
	chunk := []byte(strings.Repeat("2026-12-01T23:00:00Z INFO request served path=/v1/models status=200 bytes=1532\n", 64<<10/80))
	b.SetBytes(int64(len(chunk)))
	w := s.Stream(io.Discard)
	for b.Loop() {
		w.Write(chunk)
	}
}

// TestStreamPassesOnAtOnce: what cannot be the start of a value is
// written at once (a quiet worker's last line is in the log), the start
// of one waits.
func TestStreamPassesOnAtOnce(t *testing.T) {
	s := &Set{}
	s.add("K", "canary-value")
	var b bytes.Buffer
	w := s.Stream(&b)
	w.Write([]byte("listening\n"))
	if b.String() != "listening\n" {
		t.Errorf("after a line: %q, want it passed on", b.String())
	}
	w.Write([]byte("key=cana"))
	if b.String() != "listening\nkey=" {
		t.Errorf("after the start of a value: %q, want it held back", b.String())
	}
	w.Write([]byte("ry-value\n"))
	if b.String() != "listening\nkey=<K>\n" {
		t.Errorf("after the rest: %q", b.String())
	}
}

// FuzzStreamMany: with more values than pairScanFrom the sink takes its
// one-pass path; its output is still one replacement over the whole
// stream.
func FuzzStreamMany(f *testing.F) {
	f.Add("secret-value", "a secret-value b secret-valu abcdefgh", "other-value", "abcdefgh", "secrez", uint8(3), uint8(7))
	f.Add("aaaaaa", "aaaaaaaaaaaaaaab", "aaaaaaa", "aaaaab", "baaaaa", uint8(5), uint8(1))
	f.Fuzz(func(t *testing.T, v1, text, v2, v3, v4 string, c1, c2 uint8) {
		s := &Set{}
		for i, v := range []string{v1, v2, v3, v4} {
			s.add(string(rune('A'+i)), v)
		}
		if got, want := streamed(t, s, text, []int{int(c1), int(c2)}), s.Text(text); got != want {
			t.Fatalf("Stream(%q) = %q, Text = %q", text, got, want)
		}
	})
}

// TestStreamManyRandom: the one-pass path (more values than
// pairScanFrom, over alphabets of two to four letters so that values overlap and
// share prefixes all the time) against the set's Text over the whole
// stream, cut at random.
func TestStreamManyRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(27, 5))
	word := func(alphabet string, lo, hi int) string {
		b := make([]byte, lo+r.IntN(hi-lo+1))
		for i := range b {
			b[i] = alphabet[r.IntN(len(alphabet))]
		}
		return string(b)
	}
	for n := range 3000 {
		values := []string{"ab", "abc", "abcd"}[n%3]
		var secs []Secret
		for i := range 4 + r.IntN(8) {
			secs = append(secs, Secret{Name: string(rune('A' + i)), Value: word(values, MinLen, MinLen+6)})
		}
		s := Of(secs, nil)
		text := word(values+"x", 0, 300)
		for range r.IntN(4) {
			// A value planted whole.
			v := secs[r.IntN(len(secs))].Value
			i := r.IntN(len(text) + 1)
			text = text[:i] + v + text[i:]
		}
		sizes := []int{1 + r.IntN(40), 1 + r.IntN(40)}
		if got, want := streamed(t, s, text, sizes), s.Text(text); got != want {
			t.Fatalf("Stream(%q) = %q, Text = %q", text, got, want)
		}
	}
}
