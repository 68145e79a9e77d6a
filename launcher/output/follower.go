package output

import (
	"bytes"
	"context"
	"io"
	"regexp"
	"sync"
	"sync/atomic"
	"time"

	"github.com/childproof/childproof/internal/logtail"
)

// FollowEvery is how often a followed log is read for new lines while
// the launch starts (Ready.Log waits on it), where the kernel does not
// say when it is written (logtail.Changes); FollowRunning once Start has
// returned (Running), or where it does (the clock then only minds a
// rotation).
const (
	FollowEvery   = 5 * time.Millisecond
	FollowRunning = 50 * time.Millisecond
)

// Follower gives the tree's output, masked, to launcher.Options.Output,
// and sees the first line that matches Options.Ready.Log (HasMatched).
// In the foreground it is fed by the pipe's reader (Feed: the bytes
// written to the log, in the same pass, so the log and Output are the
// same bytes and nothing is read twice); for a detached launch, whose
// pipe the relay process reads, it follows the log until Start returns
// (Follow). Both get the output already masked: at the source, by the
// pipe's reader. Its methods are safe for concurrent use: the pipe's
// reader writes to it while the launch asks whether a line matched.
type Follower struct {
	// started is set once Start returned: the log is read less often.
	started atomic.Bool
	cancel  context.CancelFunc
	done    chan struct{}
	// opt waits for Options.Ready.Log, spec for the spec's ready.log
	// (nil: none); wake, when set, is told of every line (readiness
	// probes again when the worker wrote something).
	opt, spec *lineWait
	wake      func()

	// fed mode: Write takes what the pipe's reader wrote to the log.
	mu      sync.Mutex
	out     io.Writer
	pending []byte // a line not ended yet
	stopped bool
}

// MaxLine bounds how much of a line not ended yet the fed follower holds
// back: a longer one is passed on in pieces (the last with its newline),
// so that Output stays the log's bytes (package relay's split streams
// hold back as much).
const MaxLine = 1 << 20

// lineWait is a wait for a line of output that matches re: done is
// closed at the first.
type lineWait struct {
	re   *regexp.Regexp
	done chan struct{}
	once sync.Once
	// left is how many more matching lines close done (one of them at
	// first: Readiness.LogCount).
	left atomic.Int64
}

// newLineWait returns the wait for n lines matching re (n < 1: one), or
// nil for a nil re.
func newLineWait(re *regexp.Regexp, n int) *lineWait {
	if re == nil {
		return nil
	}
	w := &lineWait{re: re, done: make(chan struct{})}
	w.left.Store(int64(max(n, 1)))
	return w
}

// see matches line against w (a nil w, or one matched already: nothing).
func (w *lineWait) see(line []byte) {
	if w != nil && !w.matched() && w.re.Match(line) && w.left.Add(-1) <= 0 {
		w.once.Do(func() { close(w.done) })
	}
}

// matched reports whether a line matched (nil: never).
func (w *lineWait) matched() bool {
	if w == nil {
		return false
	}
	select {
	case <-w.done:
		return true
	default:
		return false
	}
}

// Watch says what a follower looks for in the output: Options.Ready.Log
// (Opt), the spec's ready.log (Spec), and whom to tell of each line
// (Wake). It is plain data, safe for concurrent use while no one changes
// it.
type Watch struct {
	Opt, Spec *regexp.Regexp
	// OptN is how many lines must match Opt (Readiness.LogCount).
	OptN int
	Wake func()
}

func (w Watch) none() bool { return w.Opt == nil && w.Spec == nil && w.Wake == nil }

// Feed returns the follower of a foreground launch, which the pipe's
// reader writes to (Write), when out or w asks for one; nil otherwise.
func Feed(out io.Writer, w Watch) *Follower {
	if out == nil && w.none() {
		return nil
	}
	return &Follower{out: out, opt: newLineWait(w.Opt, w.OptN), spec: newLineWait(w.Spec, 1), wake: w.Wake}
}

// Write passes the whole lines of what the pipe's reader wrote to the log
// on to Output in one write, and holds back a line not ended yet. It never
// fails: Output's errors are its own, and the log is written regardless.
func (f *Follower) Write(p []byte) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.stopped {
		return len(p), nil
	}
	i := bytes.LastIndexByte(p, '\n')
	if i < 0 {
		f.pending = append(f.pending, p...)
		if len(f.pending) >= MaxLine {
			f.pass(f.pending) // a piece of a long line, as the log has it
			f.pending = f.pending[:0]
		}
		return len(p), nil
	}
	block := p[:i+1]
	if len(f.pending) > 0 {
		// The line held back, ended by p's first line: a copy of that
		// line only, not of the read.
		j := bytes.IndexByte(p, '\n') + 1
		f.pass(append(f.pending, p[:j]...))
		block = p[j : i+1]
	}
	if len(block) > 0 {
		f.pass(block)
	}
	f.pending = append(f.pending[:0], p[i+1:]...)
	return len(p), nil
}

// pass gives lines (each ending in a newline, but for a piece of a line
// over MaxLine) to the matcher and Output.
func (f *Follower) pass(block []byte) {
	if f.opt != nil && !f.opt.matched() || f.spec != nil && !f.spec.matched() {
		for rest := block; len(rest) > 0; {
			line := rest
			if j := bytes.IndexByte(rest, '\n'); j >= 0 {
				line, rest = rest[:j], rest[j+1:]
			} else {
				rest = nil // a piece of a long line
			}
			f.opt.see(line)
			f.spec.see(line)
		}
	}
	if f.out != nil {
		f.out.Write(block)
	}
	if f.wake != nil {
		f.wake()
	}
}

// Follow starts following the log at path (from its start) when out or
// w asks for it; nil otherwise. The log holds the output masked already.
func Follow(path string, out io.Writer, w Watch) *Follower {
	if out == nil && w.none() {
		return nil
	}
	t, err := logtail.Open(path)
	if err != nil {
		return nil
	}
	ctx, cancel := context.WithCancel(context.Background())
	f := &Follower{cancel: cancel, done: make(chan struct{}), opt: newLineWait(w.Opt, w.OptN), spec: newLineWait(w.Spec, 1), wake: w.Wake}
	buf := make([]byte, 0, 256)
	// Each write of the relay wakes the follower: a line is seen as it
	// is logged, not up to FollowEvery later.
	changes := logtail.Changes(ctx, path)
	go func() {
		defer close(f.done)
		defer t.Close()
		every := func() time.Duration {
			if f.started.Load() || changes != nil {
				return FollowRunning
			}
			return FollowEvery
		}
		t.FollowWoken(ctx, every, changes, func(line []byte) {
			buf = append(append(buf[:0], line...), '\n')
			f.opt.see(buf[:len(line)])
			f.spec.see(buf[:len(line)])
			if out != nil {
				out.Write(buf)
			}
			if f.wake != nil {
				f.wake()
			}
		}, nil)
	}()
	return f
}

// Running says the launch is verified and ready: from now on the log is
// read every FollowRunning. Safe on nil.
func (f *Follower) Running() {
	if f != nil {
		f.started.Store(true)
	}
}

// Stop returns once nothing more will be written to Output: a followed
// log is read to its end, a fed follower passes on its last line not
// ended yet (with a newline). Safe on nil and twice.
func (f *Follower) Stop() {
	if f == nil {
		return
	}
	if f.cancel != nil {
		f.cancel()
		<-f.done
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if !f.stopped && len(f.pending) > 0 {
		f.pass(append(f.pending, '\n'))
	}
	f.stopped, f.pending = true, nil
}

// HasMatched reports whether a line matched Options.Ready.Log (nil
// follower: never).
func (f *Follower) HasMatched() bool { return f != nil && f.opt.matched() }

// SpecMatched reports whether a line matched the spec's ready.log (nil
// follower: never).
func (f *Follower) SpecMatched() bool { return f != nil && f.spec.matched() }
