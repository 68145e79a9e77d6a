package launcher

import (
	"context"
	"io"
	"regexp"
	"sync"
	"sync/atomic"
	"time"

	"github.com/childproof/childproof/internal/logtail"
	"github.com/childproof/childproof/redact"
)

// followEvery is how often a followed log is read for new lines while
// the launch starts (Ready.Log waits on it); followRunning once Start has
// returned.
const (
	followEvery   = 5 * time.Millisecond
	followRunning = 50 * time.Millisecond
)

// follower reads a launch's log as the tree writes it: each line, masked,
// goes to Options.Output, and a line matching Options.Ready.Log closes
// matched.
type follower struct {
	// started is set once Start returned: the log is read less often.
	started atomic.Bool
	cancel  context.CancelFunc
	done    chan struct{}
	matched chan struct{}
	once    sync.Once
}

// follow starts following the log at path (from its start) when out or
// match is set; nil otherwise. secrets masks each line before out or
// match sees it.
func follow(path string, secrets *redact.Set, out io.Writer, match *regexp.Regexp) *follower {
	if out == nil && match == nil {
		return nil
	}
	t, err := logtail.Open(path)
	if err != nil {
		return nil
	}
	// A copy of its own: a Set caches its replacer on first use, and the
	// launch masks with secrets meanwhile.
	mask := redact.New()
	mask.Merge(secrets)
	ctx, cancel := context.WithCancel(context.Background())
	f := &follower{cancel: cancel, done: make(chan struct{}), matched: make(chan struct{})}
	buf := make([]byte, 0, 256)
	go func() {
		defer close(f.done)
		defer t.Close()
		every := func() time.Duration {
			if f.started.Load() {
				return followRunning
			}
			return followEvery
		}
		t.FollowEvery(ctx, every, func(line string) {
			line = mask.Text(line)
			if match != nil && match.MatchString(line) {
				f.once.Do(func() { close(f.matched) })
			}
			if out != nil {
				buf = append(append(buf[:0], line...), '\n')
				out.Write(buf)
			}
		})
	}()
	return f
}

// running says the launch is verified and ready: from now on the log is
// read every followRunning. Safe on nil.
func (f *follower) running() {
	if f != nil {
		f.started.Store(true)
	}
}

// stop reads what is left of the log, writes it, and returns once nothing
// more will be written. Safe on nil and twice.
func (f *follower) stop() {
	if f == nil {
		return
	}
	f.cancel()
	<-f.done
}

// hasMatched reports whether a line matched (nil follower: never).
func (f *follower) hasMatched() bool {
	if f == nil {
		return false
	}
	select {
	case <-f.matched:
		return true
	default:
		return false
	}
}
