package console

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/rivo/uniseg"
)

func TestPassThrough(t *testing.T) {
	var b bytes.Buffer
	c := New(&b, Options{Prefix: true})
	s := c.Wait("api", time.Now(), time.Second)
	c.Output("api", "one")
	c.Output("database", "two")
	c.Output("api", "three")
	s.Set("waiting", time.Now(), time.Second)
	c.Write([]byte("report\n"))
	s.Done()
	c.Close()
	want := "api | one\ndatabase | two\napi      | three\nreport\n"
	if diff := cmp.Diff(want, b.String()); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestNoPrefix(t *testing.T) {
	var b bytes.Buffer
	c := New(&b, Options{})
	c.Output("api", "one")
	if b.String() != "one\n" {
		t.Errorf("got %q", b.String())
	}
}

// screen applies what the console wrote to a tiny terminal that knows the
// sequences the console uses: \r, \n, ESC[2K and ESC[nF.
func screen(t *testing.T, out string) []string {
	t.Helper()
	lines := []string{""}
	row := 0
	for i := 0; i < len(out); i++ {
		switch c := out[i]; {
		case c == '\r':
		case c == '\n':
			row++
			if row == len(lines) {
				lines = append(lines, "")
			}
		case c == 0x1b:
			j := i + 2
			for j < len(out) && (out[j] < '@' || out[j] > '~') {
				j++
			}
			seq := out[i+2 : j+1]
			switch seq {
			case "2K":
				lines[row] = ""
			case "1F":
				row--
			default:
				if !strings.HasSuffix(seq, "m") {
					t.Fatalf("unexpected sequence %q", seq)
				}
			}
			i = j
		default:
			lines[row] += out[i : i+1]
		}
	}
	return lines
}

func TestLive(t *testing.T) {
	var b bytes.Buffer
	now := time.Date(2026, 12, 1, 3, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	c := New(&b, Options{Live: true, Tick: time.Hour, Now: clock, Width: func() int { return 60 }})
	s := c.Wait("api", now, 10*time.Second)
	now = now.Add(1500 * time.Millisecond)
	s.Set("waiting for pid 42 (python3) to listen on 127.0.0.1:8000", now.Add(-1500*time.Millisecond), 10*time.Second)
	c.Output("api", "loading weights\r 10%\r 50%")
	got := screen(t, b.String())
	if len(got) != 2 || !strings.HasPrefix(got[0], "loading weights") {
		t.Fatalf("screen = %q", got)
	}
	if w := uniseg.StringWidth(got[1]); w > 59 {
		t.Errorf("status line %q is %d columns, want at most 59", got[1], w)
	}
	if !strings.HasPrefix(got[1], "… waiting for pid 42 (python3) to listen on") {
		t.Errorf("status line = %q", got[1])
	}
	// A wide terminal shows the clock and the last output line, cleaned.
	c.opt.Width = func() int { return 200 }
	c.Write([]byte("report\n"))
	got = screen(t, b.String())
	if got[1] != "report" {
		t.Errorf("screen = %q", got)
	}
	if got[2] != "… waiting for pid 42 (python3) to listen on 127.0.0.1:8000 · 1.5s of 10s · last output: 50%" {
		t.Errorf("status line = %q", got[2])
	}
	c.Close()
	got = screen(t, b.String())
	if got[len(got)-1] != "" {
		t.Errorf("after Close the status line is still there: %q", got)
	}
}

func TestTwoStatusLines(t *testing.T) {
	var b bytes.Buffer
	now := time.Now()
	c := New(&b, Options{Live: true, Tick: time.Hour, Prefix: true, Now: func() time.Time { return now }})
	a := c.Wait("api", now, 0)
	d := c.Wait("db", now, 0)
	a.Set("waiting a", now, 0)
	d.Set("waiting d", now, 0)
	c.Output("db", "ready to accept connections")
	got := screen(t, b.String())
	want := []string{"db  | ready to accept connections", "… api: waiting a · 0s", "… db: waiting d · 0s · last output: ready to accept connections"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	a.Done()
	d.Done()
	got = screen(t, b.String())
	if diff := cmp.Diff([]string{"db  | ready to accept connections", "", ""}, got); diff != "" {
		t.Errorf("after Done (-want +got):\n%s", diff)
	}
}

func TestClean(t *testing.T) {
	for in, want := range map[string]string{
		"plain":                    "plain",
		"\x1b[31mred\x1b[0m":       "red",
		"a\tb":                     "a b",
		"  50%|#####     |\r 60%|": "60%|",
		"bell\a":                   "bell",
	} {
		if got := Clean(in); got != want {
			t.Errorf("Clean(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestTruncate(t *testing.T) {
	for _, tc := range []struct {
		in    string
		width int
		want  string
	}{
		{"hello", 10, "hello"},
		{"hello world", 5, "hell…"},
		{"日本語テキスト", 6, "日本…"},
		{"x", 0, ""},
	} {
		if got := Truncate(tc.in, tc.width); got != tc.want {
			t.Errorf("Truncate(%q, %d) = %q, want %q", tc.in, tc.width, got, tc.want)
		}
	}
}

func TestSideWriter(t *testing.T) {
	var b bytes.Buffer
	now := time.Now()
	c := New(&b, Options{Live: true, Tick: time.Hour, Now: func() time.Time { return now }})
	s := c.Wait("api", now, 0)
	s.Set("waiting", now, 0)
	// Another stream on the same terminal: here the same buffer.
	fmt := c.Writer(&b)
	fmt.Write([]byte("childproof: warning: something\n"))
	got := screen(t, b.String())
	if diff := cmp.Diff([]string{"childproof: warning: something", "… waiting · 0s"}, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// TestOutputBlock: a block of lines is what Output of each line gives,
// in one write, and its last line is the status line's last output.
func TestOutputBlock(t *testing.T) {
	for _, prefix := range []bool{false, true} {
		var one, block countingBuffer
		a, b := New(&one, Options{Prefix: prefix}), New(&block, Options{Prefix: prefix})
		a.Output("database", "x")
		b.Output("database", "x")
		for _, l := range []string{"one", "", "three"} {
			a.Output("api", l)
		}
		s := b.Wait("api", time.Now(), 0)
		writes := block.writes
		b.OutputBlock("api", []byte("one\n\nthree\n"))
		if diff := cmp.Diff(one.String(), block.String()); diff != "" {
			t.Errorf("prefix %v: (-Output +OutputBlock):\n%s", prefix, diff)
		}
		if block.writes != writes+1 {
			t.Errorf("prefix %v: OutputBlock made %d writes, want 1", prefix, block.writes-writes)
		}
		if s.last != "three" {
			t.Errorf("prefix %v: last output %q, want three", prefix, s.last)
		}
	}
}

type countingBuffer struct {
	bytes.Buffer
	writes int
}

func (c *countingBuffer) Write(p []byte) (int, error) {
	c.writes++
	return c.Buffer.Write(p)
}
