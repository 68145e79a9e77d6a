package relay

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/childproof/childproof/internal/logrelay"
	"github.com/childproof/childproof/launcher/output"
	"github.com/childproof/childproof/launcher/proctree"
	"github.com/childproof/childproof/redact"
)

// referenceMask is the masking the log promises, written independently of
// redact: at each position, leftmost first, the longest secret value (of
// at least redact.MinLen bytes) that starts there is replaced by <NAME>.
func referenceMask(text string, secs []redact.Secret) string {
	var b strings.Builder
	for i := 0; i < len(text); {
		best := -1
		for k, s := range secs {
			if len(s.Value) >= redact.MinLen && strings.HasPrefix(text[i:], s.Value) && (best < 0 || len(s.Value) > len(secs[best].Value)) {
				best = k
			}
		}
		if best < 0 {
			b.WriteByte(text[i])
			i++
			continue
		}
		b.WriteString(redact.Placeholder(secs[best].Name))
		i += len(secs[best].Value)
	}
	return b.String()
}

// propertyCase is one generated case: a secret set, and what the tree
// writes, planted with the secrets' values and pieces of them, cut into
// writes of random sizes.
type propertyCase struct {
	secs   []redact.Secret
	text   string
	chunks []int
}

func genPropertyCase(r *rand.Rand, big bool) propertyCase {
	const alphabet = "ab-_:/=. \n"
	word := func(lo, hi int) string {
		b := make([]byte, lo+r.IntN(hi-lo+1))
		for i := range b {
			b[i] = alphabet[r.IntN(len(alphabet)-2)] // no space or newline in a value
		}
		return string(b)
	}
	var c propertyCase
	first := ""
	for i := range 1 + r.IntN(12) {
		v := "CANARY" + word(0, 24)
		if i > 0 && r.IntN(4) == 0 {
			v = first + word(1, 6) // a value that another one starts
		}
		if r.IntN(8) == 0 {
			v = word(1, redact.MinLen-1) // too short to mask in text: digest-only
		}
		if first == "" {
			first = v
		}
		c.secs = append(c.secs, redact.Secret{Name: fmt.Sprintf("S%d", i), Value: v})
	}
	var b strings.Builder
	n := 20 + r.IntN(60)
	for range n {
		switch r.IntN(5) {
		case 0, 1:
			b.WriteString(c.secs[r.IntN(len(c.secs))].Value) // a value whole
		case 2:
			v := c.secs[r.IntN(len(c.secs))].Value
			b.WriteString(v[:r.IntN(len(v))]) // a piece of one: not masked
		default:
			for range 1 + r.IntN(40) {
				b.WriteByte(alphabet[r.IntN(len(alphabet))])
			}
		}
	}
	if big {
		// A line longer than the reader's buffer and the follower's line
		// bound, a value across the reader's read boundary.
		b.WriteString(strings.Repeat("x", logrelay.Buf-5) + c.secs[0].Value + strings.Repeat("y", output.MaxLine+100) + "\n")
	}
	c.text = b.String()
	for rest := len(c.text); rest > 0; {
		k := min(rest, 1+r.IntN(64))
		if r.IntN(10) == 0 {
			k = min(rest, 1+r.IntN(300<<10))
		}
		c.chunks = append(c.chunks, k)
		rest -= k
	}
	return c
}

// runPropertyCase writes the case into a new output pipe (as the tree
// does) and returns the log and, in the foreground, what Output got.
func runPropertyCase(t *testing.T, c propertyCase, detach bool) (log, console string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "w.log")
	logf, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	var f *output.Follower
	var also *output.Follower
	if !detach {
		f = output.Feed(&out, output.Watch{})
		also = f
	}
	set := redact.Of(c.secs, nil)
	var o *Pipe
	if also != nil {
		o, err = Start(logf, set, "", "", also)
	} else {
		prog := ""
		if detach {
			prog = "/proc/self/exe"
		}
		o, err = Start(logf, set, prog, proctree.NewMarker("property"), nil)
	}
	if err != nil {
		t.Fatal(err)
	}
	if detach {
		o.Drain(10 * time.Second) // the relay has its secrets
	}
	text := c.text
	for _, k := range c.chunks {
		if _, err := o.Stdout().Write([]byte(text[:k])); err != nil {
			t.Fatal(err)
		}
		text = text[k:]
	}
	o.Finish(30 * time.Second)
	select {
	case <-o.Done():
	case <-time.After(30 * time.Second):
		t.Fatal("the pipe's reader never reached its end")
	}
	f.Stop()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b), out.String()
}

// TestOutputProperty: for random secret sets and random output cut into
// random writes, the log (and, in the foreground, what Output gets in the
// same pass) holds no secret value that is masked in text, every other
// byte as the tree wrote it (the reference masking over the whole
// stream), and Output is the log byte for byte (a last line not ended
// gets its newline). Detached, the relay process writes the log.
func TestOutputProperty(t *testing.T) {
	r := rand.New(rand.NewPCG(27, 27))
	n := 150
	if testing.Short() {
		n = 30
	}
	for i := range n {
		detach := i%25 == 24
		c := genPropertyCase(r, i%50 == 7)
		log, console := runPropertyCase(t, c, detach)
		want := referenceMask(c.text, c.secs)
		if log != want {
			t.Fatalf("case %d (detach %v, %d secrets, %d bytes in %d writes): the log differs from the reference masking (len %d, want %d)\nfirst difference at %d", i, detach, len(c.secs), len(c.text), len(c.chunks), len(log), len(want), firstDiff(log, want))
		}
		for _, s := range c.secs {
			if len(s.Value) >= redact.MinLen && strings.Contains(log+console, s.Value) {
				t.Fatalf("case %d: the secret %s appears in the log or the console", i, s.Name)
			}
		}
		if detach {
			continue
		}
		wantConsole := log
		if log != "" && !strings.HasSuffix(log, "\n") {
			wantConsole += "\n"
		}
		if console != wantConsole {
			t.Fatalf("case %d: the console differs from the log (len %d, want %d) at %d", i, len(console), len(wantConsole), firstDiff(console, wantConsole))
		}
	}
}

func firstDiff(a, b string) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

// blockedConsole is a console whose first write waits until release is
// closed (a terminal scrolled back, a pager that stopped reading).
type blockedConsole struct {
	mu      sync.Mutex
	buf     bytes.Buffer
	entered chan struct{}
	release chan struct{}
	once    sync.Once
}

func (c *blockedConsole) Write(p []byte) (int, error) {
	c.once.Do(func() {
		close(c.entered)
		<-c.release
	})
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.buf.Write(p)
}

// TestFinishWaitsForConsole: the foreground reader's finish waits for a
// reader that is behind (its console write takes longer than finish's
// limit) rather than giving up at the limit, so that the console gets
// the last lines the log gets (a loaded machine cut them off: series at
// 737eaba, TestCanaryMatrix's foreground console).
func TestFinishWaitsForConsole(t *testing.T) {
	path := filepath.Join(t.TempDir(), "w.log")
	logf, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	con := &blockedConsole{entered: make(chan struct{}), release: make(chan struct{})}
	f := output.Feed(con, output.Watch{})
	o, err := Start(logf, redact.Of(nil, nil), "", "", f)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := o.Stdout().Write([]byte("first line\n")); err != nil {
		t.Fatal(err)
	}
	<-con.entered // the reader is in the console's write
	for i := range 100 {
		fmt.Fprintf(o.Stdout(), "line %d after the console stalled\n", i)
	}
	finished := make(chan struct{})
	go func() {
		o.Finish(10 * time.Millisecond)
		close(finished)
	}()
	// Well past finish's limit (the bug showed within it; with the fix
	// the result does not depend on this time).
	time.Sleep(100 * time.Millisecond)
	close(con.release)
	<-finished
	f.Stop()
	log, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	con.mu.Lock()
	got := con.buf.String()
	con.mu.Unlock()
	if got != string(log) || !strings.Contains(got, "line 99 after") {
		t.Errorf("the console lost output the log has:\nconsole %d bytes, log %d bytes; console ends %q", len(got), len(log), got[max(0, len(got)-60):])
	}
}
