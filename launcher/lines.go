package launcher

import (
	"bytes"
	"context"
	"regexp"
	"slices"
	"sync"
)

// Lines is an io.Writer that keeps the lines written to it (Options.Stdout,
// Options.Stderr or Output) and waits for them: a test reads or waits on
// one stream of a server's output. Its zero value is ready to use. It is
// safe for concurrent use.
type Lines struct {
	mu      sync.Mutex
	lines   []string
	pending []byte
	changed chan struct{} // closed and replaced at each new line
}

// Write keeps each whole line of p (a line not ended yet is kept once it
// ends). It never fails.
func (l *Lines) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.pending = append(l.pending, p...)
	added := false
	for {
		i := bytes.IndexByte(l.pending, '\n')
		if i < 0 {
			break
		}
		l.lines = append(l.lines, string(l.pending[:i]))
		l.pending = l.pending[i+1:]
		added = true
	}
	if len(l.pending) == 0 {
		l.pending = nil
	}
	if added && l.changed != nil {
		close(l.changed)
		l.changed = nil
	}
	return len(p), nil
}

// Lines returns the lines written so far, without their newlines.
func (l *Lines) Lines() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.lines)
}

// Wait waits until n lines (at least 1) written so far match re, and
// returns them; it returns ctx's error, with the lines that matched,
// when ctx ends first.
func (l *Lines) Wait(ctx context.Context, re *regexp.Regexp, n int) ([]string, error) {
	n = max(n, 1)
	for {
		l.mu.Lock()
		var got []string
		for _, s := range l.lines {
			if re.MatchString(s) {
				got = append(got, s)
			}
		}
		if len(got) >= n {
			l.mu.Unlock()
			return got[:n], nil
		}
		if l.changed == nil {
			l.changed = make(chan struct{})
		}
		ch := l.changed
		l.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			return got, ctx.Err()
		}
	}
}
