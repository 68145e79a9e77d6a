package output

import (
	"bytes"
	"context"
	"fmt"
	"regexp"
	"slices"
	"sync"
)

// The bounds of a Lines: it keeps the last MaxLines lines and at most
// MaxLinesBytes of them (the oldest are dropped first), and a line longer
// than MaxLineBytes is kept as pieces of MaxLineBytes (each a line).
const (
	MaxLines      = 10000
	MaxLinesBytes = 4 << 20
	MaxLineBytes  = 64 << 10
)

// Lines is an io.Writer that keeps the lines written to it (Options.Stdout,
// Options.Stderr or Output) and waits for them: a test reads or waits on
// one stream of a server's output. It keeps the last MaxLines lines (at
// most MaxLinesBytes), dropping the oldest, so that a server that logs
// for hours does not grow the test's memory; Dropped says how many were
// dropped. Its zero value is ready to use. It is safe for concurrent use.
type Lines struct {
	mu      sync.Mutex
	lines   []string
	bytes   int // the sum of the kept lines' lengths
	dropped int // how many of the first lines were dropped
	pending []byte
	changed chan struct{} // closed and replaced at each new line
}

// Write keeps each whole line of p (a line not ended yet is kept once it
// ends, or once it is MaxLineBytes long). It never fails.
func (l *Lines) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.pending = append(l.pending, p...)
	added := false
	for {
		i := bytes.IndexByte(l.pending, '\n')
		if i < 0 && len(l.pending) < MaxLineBytes {
			break
		}
		if i < 0 || i > MaxLineBytes {
			l.keep(string(l.pending[:MaxLineBytes]))
			l.pending = l.pending[MaxLineBytes:]
		} else {
			l.keep(string(l.pending[:i]))
			l.pending = l.pending[i+1:]
		}
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

// keep appends a line and drops the oldest beyond the bounds (call with
// mu held).
func (l *Lines) keep(s string) {
	l.lines = append(l.lines, s)
	l.bytes += len(s)
	k := 0
	for len(l.lines)-k > MaxLines || l.bytes > MaxLinesBytes && len(l.lines)-k > 1 {
		l.bytes -= len(l.lines[k])
		k++
	}
	if k > 0 {
		clear(l.lines[:k]) // let the dropped strings go
		l.lines = l.lines[k:]
		l.dropped += k
	}
}

// Lines returns the lines kept (written so far, less the Dropped oldest),
// without their newlines.
func (l *Lines) Lines() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.lines)
}

// Dropped returns how many of the first lines written are no longer kept
// (beyond MaxLines or MaxLinesBytes).
func (l *Lines) Dropped() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.dropped
}

// Wait waits until n lines (at least 1) match re, and returns them: the
// lines kept when it is called, then each line as it is written. A line
// is matched once written, whatever is dropped later; lines dropped
// before Wait could match them (before the call, or more than MaxLines
// written while it waited) are not counted. It returns ctx's error, with
// the lines that matched, when ctx ends first; the error then also says
// how many lines were dropped unseen, if any (errors.Is still finds
// ctx's error).
func (l *Lines) Wait(ctx context.Context, re *regexp.Regexp, n int) ([]string, error) {
	n = max(n, 1)
	var got []string
	l.mu.Lock()
	next := l.dropped // the index (counting dropped lines) of the next line to match
	unseen := l.dropped
	for {
		if next < l.dropped {
			unseen += l.dropped - next
			next = l.dropped
		}
		for ; next < l.dropped+len(l.lines); next++ {
			if s := l.lines[next-l.dropped]; re.MatchString(s) {
				got = append(got, s)
				if len(got) == n {
					l.mu.Unlock()
					return got, nil
				}
			}
		}
		if l.changed == nil {
			l.changed = make(chan struct{})
		}
		ch := l.changed
		l.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			if unseen > 0 {
				return got, fmt.Errorf("%w (%d earlier lines were dropped before they could be matched: a Lines keeps the last %d lines, at most %d bytes)", ctx.Err(), unseen, MaxLines, MaxLinesBytes)
			}
			return got, ctx.Err()
		}
		l.mu.Lock()
	}
}
