package logrelay

import (
	"bytes"
	"io"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/childproof/childproof/redact"
)

// countingReader gives endless full reads of one line, counting them; it
// fails the test when a read comes while limit says none may.
type countingReader struct {
	t     *testing.T
	reads atomic.Int32
	limit func(n int32) bool // false: read n may not happen now
	at    map[int32]chan struct{}
	stop  atomic.Bool
}

func (c *countingReader) Read(p []byte) (int, error) {
	if c.stop.Load() {
		return 0, io.EOF
	}
	n := c.reads.Add(1)
	if !c.limit(n) {
		c.t.Errorf("read %d while the console holds every buffer", n)
	}
	if ch, ok := c.at[n]; ok {
		close(ch)
	}
	for i := range p {
		p[i] = "0123456789abcdef\n"[i%17]
	}
	return len(p), nil
}

// blockingConsole is slow at its first write, then blocks each write
// until released, keeping what it is given.
type blockingConsole struct {
	n       int
	release chan struct{}
	got     bytes.Buffer
}

func (c *blockingConsole) Write(p []byte) (int, error) {
	c.n++
	if c.n == 1 {
		time.Sleep(2 * SlowConsole) // slow: the next full reads go to the queue
	} else {
		<-c.release
	}
	c.got.Write(p)
	return len(p), nil
}

// TestTeeBounded: a console that does not keep up holds Tee's buffers,
// and the reader then stops reading (the tree's writes wait): it reads at
// most the one written in turn plus one per buffer before the console
// takes more. The console gets the log's bytes, in order.
func TestTeeBounded(t *testing.T) {
	const size, slots = 64, 3
	con := &blockingConsole{release: make(chan struct{})}
	full := make(chan struct{})
	var released atomic.Bool
	r := &countingReader{t: t, at: map[int32]chan struct{}{1 + slots: full}}
	r.limit = func(n int32) bool { return n <= 1+slots || released.Load() }
	var log bytes.Buffer
	done := make(chan error, 1)
	go func() {
		done <- copyOut(r, &log, con, redact.Of(nil, nil), nil, size, slots)
	}()
	<-full // every buffer taken: the reader now waits for the console
	released.Store(true)
	r.stop.Store(true)
	close(con.release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if con.got.String() != log.String() || log.Len() == 0 {
		t.Errorf("the console (%d bytes) is not the log (%d bytes)", con.got.Len(), log.Len())
	}
}

// slowConsole is slow at every write (each goes through the queue).
type slowConsole struct{ got bytes.Buffer }

func (c *slowConsole) Write(p []byte) (int, error) {
	time.Sleep(2 * SlowConsole)
	c.got.Write(p)
	return len(p), nil
}

// TestTeeQueueMasks: through the queue (a slow console, full reads),
// with values cut by every read boundary, the log and the console are the
// whole stream masked at once.
func TestTeeQueueMasks(t *testing.T) {
	const v = "CANARY-tee-queue-31"
	set := redact.Of([]redact.Secret{{Name: "K", Value: v}}, nil)
	var text strings.Builder
	for i := range 200 {
		text.WriteString(strings.Repeat("x", i%23) + v)
	}
	con := &slowConsole{}
	var log bytes.Buffer
	if err := copyOut(&chunkReader{text: text.String(), sizes: []byte{31}}, &log, con, set, nil, 32, 3); err != nil {
		t.Fatal(err)
	}
	want := strings.ReplaceAll(text.String(), v, "<K>")
	if log.String() != want {
		t.Errorf("log differs from the whole stream masked (%d bytes, want %d)", log.Len(), len(want))
	}
	if con.got.String() != want {
		t.Errorf("console differs from the whole stream masked (%d bytes, want %d)", con.got.Len(), len(want))
	}
}
