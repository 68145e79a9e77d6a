package logrelay

import (
	"bytes"
	"io"
	"strings"
	"testing"

	"github.com/childproof/childproof/redact"
)

// chunkReader returns its text in reads of the sizes given (cycled), as a
// pipe gives a worker's writes.
type chunkReader struct {
	text  string
	sizes []byte
	i     int
}

func (c *chunkReader) Read(p []byte) (int, error) {
	if len(c.text) == 0 {
		return 0, io.EOF
	}
	n := len(c.text)
	if len(c.sizes) > 0 {
		n = min(n, 1+int(c.sizes[c.i%len(c.sizes)]))
		c.i++
	}
	n = copy(p, c.text[:n])
	c.text = c.text[n:]
	return n, nil
}

// reference masks text as the sink must, over the whole stream at once:
// at each position, leftmost first, the longest value that starts there
// is replaced by <NAME> (values shorter than redact.MinLen are left).
func reference(text string, names, values []string) string {
	var b strings.Builder
	for i := 0; i < len(text); {
		best := -1
		for k, v := range values {
			if len(v) >= redact.MinLen && strings.HasPrefix(text[i:], v) && (best < 0 || len(v) > len(values[best])) {
				best = k
			}
		}
		if best < 0 {
			b.WriteByte(text[i])
			i++
			continue
		}
		b.WriteString("<" + names[best] + ">")
		i += len(values[best])
	}
	return b.String()
}

// independent reports whether no value overlaps another (none is inside
// another, no end of one is the start of another) and none holds '<' or
// '>' (a placeholder never makes a value): then the mask is the same
// whatever the order, and strings.ReplaceAll, one value after the other,
// is a reference too.
func independent(values []string) bool {
	for i, a := range values {
		if strings.ContainsAny(a, "<>") {
			return false
		}
		for j, b := range values {
			if i == j {
				continue
			}
			if strings.Contains(a, b) {
				return false
			}
			for n := 1; n < min(len(a), len(b)); n++ {
				if strings.HasSuffix(a, b[:n]) {
					return false
				}
			}
		}
	}
	return true
}

// FuzzTee: the foreground reader (the pipe's reads, the masking carry
// between them, the queue of buffers to the console) over reads and
// buffers as small as one byte, against the whole stream masked at once
// (reference, and strings.ReplaceAll when the values do not overlap).
// The log and the console get the same bytes; no value is left in them.
func FuzzTee(f *testing.F) {
	f.Add("a secret-value b secret-valu other-value!", "secret-value", "other-value", "abcdefgh", []byte{3, 7}, uint8(5), uint8(2))
	f.Add("aaaaaaaaaaaaaaab", "aaaaaa", "aaaaaaa", "aaaaab", []byte{0}, uint8(0), uint8(1))
	f.Add(strings.Repeat("x", 300)+"CANARY-across"+strings.Repeat("y", 300), "CANARY-across", "zzzzzz", "yyyyyyyyyy", []byte{63, 200}, uint8(64), uint8(3))
	f.Fuzz(func(t *testing.T, text, v1, v2, v3 string, sizes []byte, size, slots uint8) {
		names := []string{"A", "B", "C"}
		values := []string{v1, v2, v3}
		var secs []redact.Secret
		var maskable []string
		for k, v := range values {
			// A value with a line break or spaces around is also masked
			// line by line and trimmed (redact.Of): not this reference's.
			if strings.ContainsAny(v, "\r\n") || strings.TrimSpace(v) != v {
				return
			}
			secs = append(secs, redact.Secret{Name: names[k], Value: v})
			if len(v) >= redact.MinLen {
				maskable = append(maskable, v)
			}
		}
		// The first name given for a value wins (redact.Of).
		for k := range values {
			for j := range k {
				if values[j] == values[k] {
					values[k] = ""
				}
			}
		}
		set := redact.Of(secs, nil)
		var log, console bytes.Buffer
		r := &chunkReader{text: text, sizes: sizes}
		if err := copyOut(r, &log, &console, set, nil, 1+int(size), 2+int(slots%4)); err != nil {
			t.Fatal(err)
		}
		want := reference(text, names, values)
		if got := log.String(); got != want {
			t.Fatalf("log = %q, want %q", got, want)
		}
		if console.String() != log.String() {
			t.Fatalf("console = %q, log = %q", console.String(), log.String())
		}
		if independent(maskable) {
			all := text
			for k, v := range values {
				if len(v) >= redact.MinLen {
					all = strings.ReplaceAll(all, v, "<"+names[k]+">")
				}
			}
			if all != want {
				t.Fatalf("ReplaceAll = %q, reference = %q", all, want)
			}
			for _, v := range maskable {
				if strings.Contains(log.String(), v) {
					t.Fatalf("a value is left in the log: %q", log.String())
				}
			}
		}
		// The relay's loop, one buffer.
		var relay bytes.Buffer
		r = &chunkReader{text: text, sizes: sizes}
		if err := copyOut(r, &relay, nil, set, nil, 1+int(size), 1); err != nil {
			t.Fatal(err)
		}
		if relay.String() != want {
			t.Fatalf("relay log = %q, want %q", relay.String(), want)
		}
	})
}
