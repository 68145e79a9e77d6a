// Package logrelay is childproof's log relay: the reader of a launched
// tree's output pipe, which masks every secret value (redact.Stream)
// before a byte reaches the launch's log. In the foreground it runs as a
// goroutine of childproof (Copy); for a detached launch, as a small
// process of its own that outlives `run` (as podman's conmon does): a
// program that asks to be one (launcher.RelayMain, which the childproof
// command calls first in its main) becomes the relay when Started says it
// was started as one. Importing the package does nothing. It depends on
// the standard library and redact only.
package logrelay

import (
	"errors"
	"io"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/childproof/childproof/redact"
)

// Env, set to Mode, marks a process started to be the relay (Started).
const (
	Env  = "CHILDPROOF_LOG_RELAY"
	Mode = "1"
)

// Started reports whether this process was started to be the relay:
// Comm its only argument and Env set to Mode. Only a program that asks
// (launcher.RelayMain) then runs Run.
func Started() bool {
	return len(os.Args) == 1 && os.Args[0] == Comm && os.Getenv(Env) == Mode
}

// OfEnv names, in the relay's environment, the launch it relays for:
// OfEnv=MARKER, the launch's marker (launcher.MarkerVar's value). It is
// not the marker variable itself, so the relay is never taken for a
// member of the tree; it lets a census of the system's processes match
// a relay to its launch's record.
const OfEnv = "CHILDPROOF_LOG_RELAY_OF"

// Comm is the relay's argv[0] and comm: ps shows it; it is never a
// launch's worker.
const Comm = "childproof-log"

// Buf is the size of one read of the output pipe by the relay process
// (the pipe holds 1 MiB: fewer reads and log writes for a chatty worker,
// while the relay stays small: it holds one such buffer).
const Buf = 256 << 10

// TeeBuf is the size of one read of the foreground reader (Tee), as the
// relay's (1 MiB reads measured no better).
const TeeBuf = 256 << 10

// TeeSlots is how many read buffers Tee has: one the reader fills while
// the others wait for, or are in, the console's write. A console that
// does not keep up holds them all and the reader waits, so the tree's
// writes wait too (memory stays bounded: TeeSlots buffers).
const TeeSlots = 4

// FirstRead is the size of a copy's reads until one fills its buffer:
// most launches write a few lines at a time, and a buffer of Buf or TeeBuf
// bytes for them was the largest allocation of a process that starts
// launch after launch (the collector ran sooner, and cleared it). A read
// that fills FirstRead bytes means a chatty tree: the reads that follow
// are of the full size.
const FirstRead = 8 << 10

// SlowConsole is how long one console write of Tee may take before the
// next ones are handed to the console's own goroutine (to overlap the
// next read and log write) rather than written by the reader in turn.
const SlowConsole = 50 * time.Microsecond

// Secret is one secret as the relay receives it on its stdin. It is plain
// data, safe for concurrent use while no one changes it.
type Secret struct {
	Name  string `json:"n"`
	Value string `json:"v"`
}

// Stats is what Copy and Tee say of their progress. Its fields are atomic:
// a Stats is safe for concurrent use, and meant for it (Copy writes,
// another goroutine asks Idle).
type Stats struct {
	// Reading is set while the reader waits in a read of the pipe: all it
	// read so far is in the log (but see Idle for the console).
	Reading atomic.Bool
	Done    atomic.Bool
	// queued counts the reads that Tee's console has not written yet.
	queued atomic.Int32
	// slowConsole: the console's last write took over SlowConsole.
	slowConsole atomic.Bool
}

// Idle reports whether the reader waits in a read of the pipe with all it
// read so far written: to the log and, for Tee, to the console.
func (st *Stats) Idle() bool {
	return st.Reading.Load() && st.queued.Load() == 0
}

// Copy copies the tree's output from r to the log w through set's masking
// sink: every secret value is replaced before a byte reaches w, inside
// words and across the reads' boundaries. When w cannot be written (a
// full disk), it keeps reading and drops the output, so that the tree
// never blocks on a full pipe or dies of SIGPIPE because of its log. It
// returns at the pipe's end (every process that held its write end has
// gone), with w's first error. It reads Buf bytes at a time into one
// buffer, which it masks in place (redact.Masker: no copy of what it
// read unless a value is in it, no allocation per read).
func Copy(r io.Reader, w io.Writer, set *redact.Set, st *Stats) error {
	return copyOut(r, w, nil, set, st, Buf, 1)
}

// Tee is Copy in the foreground: the masked bytes go to the log w and,
// in the same order, to also (the console and the live view). A console
// that is slow (a write over SlowConsole) while the reader is behind (a
// read of at least half its buffer) is written on a goroutine of its own
// beside the next read and log write, through a queue of TeeSlots
// buffers of TeeBuf bytes; otherwise the reader writes it in turn. The console
// never gets a byte the log has not got first, nor loses one; its errors
// are its own (also's result is ignored). A log that cannot be written
// is given up (as Copy does) while the console still gets the output.
// Tee returns once the console has been given the last byte.
func Tee(r io.Reader, w, also io.Writer, set *redact.Set, st *Stats) error {
	return copyOut(r, w, also, set, st, TeeBuf, TeeSlots)
}

// bufs holds the read buffers of copies that ended: a process that
// starts launch after launch (a test binary) reuses them, instead of
// allocating (and the collector clearing) Buf bytes for each.
var bufs sync.Pool

// getBuf returns a buffer of n bytes, reused when one is free.
func getBuf(n int) []byte {
	if p, ok := bufs.Get().(*[]byte); ok && cap(*p) >= n {
		return (*p)[:n]
	}
	return make([]byte, n)
}

// putBuf gives b back for reuse (nil: nothing).
func putBuf(b []byte) {
	if cap(b) > 0 {
		bufs.Put(&b)
	}
}

// slot is one read buffer: in holds the carry and the bytes read, masked
// the masked copy when a value was in them; out is what is written.
type slot struct {
	in, masked, out []byte
}

func copyOut(r io.Reader, w, also io.Writer, set *redact.Set, st *Stats, size, slots int) error {
	if st == nil {
		st = &Stats{}
	}
	m := set.Masker()
	grow := func(s *slot, n int) {
		if cap(s.in) < n {
			s.in = getBuf(n)
		}
		s.in = s.in[:cap(s.in)]
	}
	// The console's goroutine and its queue are made at the first
	// hand-off to it (a slow console behind a full read): a console that
	// keeps up is written by the reader only, and a launch's output costs
	// no goroutine beside its reader (whose start and end were each a
	// wake-up of another thread).
	var free, work chan *slot
	var console chan struct{}
	startConsole := func() {
		free, work, console = make(chan *slot, slots), make(chan *slot, slots), make(chan struct{})
		for range slots - 1 {
			free <- &slot{}
		}
		go func() {
			defer close(console)
			for s := range work {
				t := time.Now()
				also.Write(s.out)
				st.slowConsole.Store(time.Since(t) > SlowConsole)
				st.queued.Add(-1)
				free <- s
			}
		}()
	}
	// rsize is the size of the next read: FirstRead until a read fills
	// it, then size.
	rsize := min(size, FirstRead)
	cur := &slot{}
	grow(cur, rsize+m.MaxCarry())
	carry := 0
	var werr error
	for {
		st.Reading.Store(true)
		n, err := r.Read(cur.in[carry : carry+rsize])
		st.Reading.Store(false)
		buf := cur.in[:carry+max(n, 0)]
		out, keep := m.Mask(&cur.masked, buf, err != nil)
		if len(out) > 0 && werr == nil {
			if _, e := w.Write(out); e != nil {
				werr = e
			}
		}
		next := cur
		if also != nil && len(out) > 0 {
			if st.queued.Load() == 0 && (n < size/2 || !st.slowConsole.Load()) {
				// With nothing queued, a console that keeps up (/dev/null,
				// a pipe read at once), or a read that did not fill half
				// the buffer (the reader keeps up with the tree), is
				// written here: a hand-off to the console's goroutine, a
				// wake-up of another thread, costs more than the overlap
				// saves (measured at load ~20: +0.7 s CPU per GB when
				// every read was handed off; within the noise when only
				// reads of at least half the buffer to a slow console are).
				t := time.Now()
				also.Write(out)
				st.slowConsole.Store(time.Since(t) > SlowConsole)
			} else {
				// The console gets this buffer; the next read goes into a
				// free one (waiting for one when the console holds them
				// all).
				if work == nil {
					startConsole()
				}
				next = <-free
			}
		}
		if n == rsize && rsize < size {
			rsize = size
		}
		grow(next, rsize+m.MaxCarry())
		carry = copy(next.in, buf[len(buf)-keep:])
		if next != cur {
			cur.out = out
			st.queued.Add(1)
			work <- cur
		}
		cur = next
		if err != nil {
			if work != nil {
				close(work)
				<-console
			}
			// Every buffer is back (the console's goroutine has
			// returned its own): the next copy reuses them.
			putBuf(cur.in)
			for len(free) > 0 {
				putBuf((<-free).in)
			}
			st.Done.Store(true)
			if errors.Is(err, io.EOF) {
				return werr
			}
			return err
		}
	}
}
