package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"sync"
	"time"

	"github.com/childproof/childproof/cmd/childproof/internal/console"
	"github.com/childproof/childproof/internal/logtail"
	"github.com/childproof/childproof/launcher"
	"github.com/childproof/childproof/schema"
	"golang.org/x/term"
)

// What a launching command shows while it works: on a terminal, a live
// status line per launch saying what it waits for (redrawn in place, with
// the elapsed time against ready.timeout and the worker's last output
// line), and in the foreground the worker's output, streamed from its log
// as it is written (prefixed with the launch's name when several launches
// share the stream). Nothing of the status line when stdout or stderr is
// not a terminal, nor with --format json (the output then goes to
// stderr, leaving stdout to the JSON object).

// launchConsole is the console of one command, shared by its launches.
type launchConsole struct {
	a          *app
	con        *console.Console
	live       bool
	out, errw  io.Writer // the app's streams before the console took them
	stream     io.Writer // where worker output goes
	views      []*launchView
	closeOnce  sync.Once
	followTick time.Duration
}

// newConsole sets up the console of a launching command; prefix puts each
// output line's launch name before it (several launches). Until close,
// whatever the command prints goes around the status lines.
func (a *app) newConsole(prefix bool) *launchConsole {
	target := a.stdout
	if a.format != "text" {
		target = a.stderr
	}
	live := a.format == "text" && isTerminal(a.stdout) && isTerminal(a.stderr)
	opt := console.Options{Live: live, Color: a.color(target), Prefix: prefix}
	if f, ok := target.(*os.File); ok && live {
		opt.Width = func() int {
			w, _, err := term.GetSize(int(f.Fd()))
			if err != nil {
				return 0
			}
			return w
		}
	}
	lc := &launchConsole{a: a, con: console.New(target, opt), live: live, out: a.stdout, errw: a.stderr, stream: target, followTick: 50 * time.Millisecond}
	if live {
		a.stdout = lc.con
		a.stderr = lc.con.Writer(a.stderr)
	}
	return lc
}

// close stops following the logs (after a last read), erases the status
// lines and gives the app its streams back.
func (lc *launchConsole) close() {
	lc.closeOnce.Do(func() {
		for _, v := range lc.views {
			v.stopFollow()
		}
		lc.con.Close()
		lc.a.stdout, lc.a.stderr = lc.out, lc.errw
	})
}

// launchView is one launch on the console.
type launchView struct {
	lc     *launchConsole
	name   string
	stream bool // print the worker's output lines (foreground)

	mu     sync.Mutex
	status *console.Status
	cancel context.CancelFunc
	done   chan struct{}
}

// view adds launch l to the console; detach says whether the command
// returns once it is verified (its output is then not streamed).
func (lc *launchConsole) view(l *schema.Launch, detach bool) *launchView {
	// The lines it shows come from the log, which holds the tree's output
	// masked already (at the source, with the launch's own secret set).
	v := &launchView{lc: lc, name: l.Name, stream: !detach}
	lc.views = append(lc.views, v)
	return v
}

// progress is the launch's Options.Progress: nil when there is nothing
// to show while it waits (a detached launch off a terminal), so that such
// a launch pays nothing for it.
func (v *launchView) progress() func(launcher.Progress) {
	if !v.stream && !v.lc.live {
		return nil
	}
	return func(p launcher.Progress) {
		v.mu.Lock()
		if v.status == nil {
			v.status = v.lc.con.Wait(v.name, p.Started, p.Timeout)
		}
		st := v.status
		v.mu.Unlock()
		st.Set(p.String(), p.Started, p.Timeout)
		v.follow(p.Log)
	}
}

// notify is the launch's Options.Notify: what it did besides launching,
// said once on stderr.
func (v *launchView) notify(msg string) {
	fmt.Fprintf(v.lc.a.stderr, "childproof: %s\n", msg)
}

// started ends the wait of a launch: the status line goes, and in the
// foreground its output is followed from now on if it was not yet.
func (v *launchView) started(la *launcher.Launch) {
	v.mu.Lock()
	st := v.status
	v.status = nil
	v.mu.Unlock()
	if st != nil {
		st.Done()
	}
	if la != nil && v.stream {
		v.follow(la.LogPath())
	}
}

// follow starts following the log at path, once.
func (v *launchView) follow(path string) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.cancel != nil || path == "" {
		return
	}
	ctx, cancel := context.WithCancel(context.Background())
	v.cancel, v.done = cancel, make(chan struct{})
	go func() {
		defer close(v.done)
		t, err := openWhenThere(ctx, path)
		if err != nil {
			return
		}
		defer t.Close()
		// The lines of one read of the log go out in one write (at most
		// outputBatch bytes at a time): one write per line made a chatty
		// worker's foreground run ten times slower than its writing to a
		// file.
		var pending, last []byte
		seen := false
		drained := func() {
			if !v.stream {
				if seen {
					v.lc.con.Last(v.name, string(last))
				}
				return
			}
			v.lc.con.OutputBlock(v.name, pending)
			pending = pending[:0]
		}
		emit := func(line []byte) {
			if !v.stream {
				// Only the last line shows, on the status line.
				last, seen = append(last[:0], line...), true
				return
			}
			if pending = append(append(pending, line...), '\n'); len(pending) >= outputBatch {
				drained()
			}
		}
		err = t.LastBytes(-1, emit)
		drained()
		if err == nil {
			t.FollowBatched(ctx, func() time.Duration { return v.lc.followTick }, emit, drained)
		}
	}()
}

// outputBatch bounds the worker output the live view gathers before it
// writes it.
const outputBatch = 256 << 10

// stopFollow ends following after a last read of the log.
func (v *launchView) stopFollow() {
	v.mu.Lock()
	cancel, done := v.cancel, v.done
	v.mu.Unlock()
	if cancel != nil {
		cancel()
		<-done
	}
}

// openWhenThere opens the log at path, waiting for it to exist.
func openWhenThere(ctx context.Context, path string) (*logtail.Tail, error) {
	for {
		t, err := logtail.Open(path)
		if !errors.Is(err, fs.ErrNotExist) || ctx.Err() != nil {
			return t, err
		}
		select {
		case <-ctx.Done():
		case <-time.After(10 * time.Millisecond):
		}
	}
}
