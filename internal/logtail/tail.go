package logtail

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"time"
)

// MaxLine bounds one emitted line: a longer run of bytes without a newline
// is emitted in pieces of this size.
const MaxLine = 64 << 10

// chunk is how much Last reads at a time, backwards from the end.
const chunk = 64 << 10

// Tail is an open log file. A Tail is not safe for concurrent use: to
// stop Follow, cancel its context rather than call Close.
type Tail struct {
	path    string
	f       *os.File
	fi      os.FileInfo // of f, to tell when the path names another file
	off     int64
	partial []byte
}

// ErrNotRegular is returned by Open when path is not a regular file.
var ErrNotRegular = errors.New("not a regular file")

// Open opens the log at path without following a symlink, and only when
// it is a regular file.
func Open(path string) (*Tail, error) {
	f, fi, err := open(path)
	if err != nil {
		return nil, err
	}
	return &Tail{path: path, f: f, fi: fi}, nil
}

func open(path string) (*os.File, os.FileInfo, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|noFollow, 0)
	if err != nil {
		return nil, nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return nil, nil, fmt.Errorf("%s: %w", path, ErrNotRegular)
	}
	return f, fi, nil
}

// Close closes the file.
func (t *Tail) Close() error { return t.f.Close() }

// Last emits the last n lines of the file (all of them when n < 0), each
// without its newline; a last line without a newline is emitted too. The
// file is then positioned at its end, where Follow goes on.
func (t *Tail) Last(n int, emit func(string)) error {
	return t.LastBytes(n, func(b []byte) { emit(string(b)) })
}

// LastBytes is Last with each line as bytes, valid only until emit
// returns (no string per line).
func (t *Tail) LastBytes(n int, emit func([]byte)) error {
	end, err := t.f.Seek(0, io.SeekEnd)
	if err != nil {
		return err
	}
	start := int64(0)
	if n >= 0 {
		start, err = t.lineStart(end, n)
		if err != nil {
			return err
		}
	}
	if _, err := t.f.Seek(start, io.SeekStart); err != nil {
		return err
	}
	t.off = start
	if err := t.drain(emit, end); err != nil {
		return err
	}
	t.flush(emit)
	return nil
}

// lineStart returns the offset where the last n lines before end begin.
func (t *Tail) lineStart(end int64, n int) (int64, error) {
	if n == 0 {
		return end, nil
	}
	buf := make([]byte, chunk)
	pos := end
	lines := 0
	// A final newline ends the last line; it does not start another.
	last := true
	for pos > 0 {
		size := min(int64(chunk), pos)
		pos -= size
		b := buf[:size]
		if _, err := t.f.ReadAt(b, pos); err != nil && !errors.Is(err, io.EOF) {
			return 0, err
		}
		for i := len(b) - 1; i >= 0; i-- {
			if b[i] != '\n' {
				last = false
				continue
			}
			if last {
				last = false
				continue
			}
			lines++
			if lines == n {
				return pos + int64(i) + 1, nil
			}
		}
	}
	return 0, nil
}

// drain reads up to limit (or to EOF when limit < 0) and emits complete lines.
func (t *Tail) drain(emit func([]byte), limit int64) error {
	buf := make([]byte, chunk)
	for limit < 0 || t.off < limit {
		want := int64(len(buf))
		if limit >= 0 {
			want = min(want, limit-t.off)
		}
		n, err := t.f.Read(buf[:want])
		if n > 0 {
			t.off += int64(n)
			t.split(buf[:n], emit)
		}
		if err == io.EOF || n == 0 {
			return nil
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// split emits the complete lines of partial+b and keeps the rest.
func (t *Tail) split(b []byte, emit func([]byte)) {
	for len(b) > 0 {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			t.partial = append(t.partial, b...)
			for len(t.partial) >= MaxLine {
				emit(t.partial[:MaxLine])
				t.partial = append(t.partial[:0], t.partial[MaxLine:]...)
			}
			return
		}
		line := b[:i]
		if len(t.partial) > 0 {
			line = append(t.partial, line...)
			t.partial = t.partial[:0]
		}
		for len(line) > MaxLine {
			emit(line[:MaxLine])
			line = line[MaxLine:]
		}
		emit(bytes.TrimSuffix(line, []byte{'\r'}))
		b = b[i+1:]
	}
}

// flush emits a held line without a newline.
func (t *Tail) flush(emit func([]byte)) {
	if len(t.partial) > 0 {
		emit(t.partial)
		t.partial = t.partial[:0]
	}
}

// Follow emits each line appended to the file until ctx is done, looking
// every interval. When the path is rotated (it names another file now),
// Follow reads the old file to its end and goes on with the new one from
// its start; a file truncated below what was read is read again from its
// start. A line still without a newline is held until its newline comes,
// and emitted when ctx is done, after a last read.
func (t *Tail) Follow(ctx context.Context, interval time.Duration, emit func(string)) error {
	return t.FollowEvery(ctx, func() time.Duration { return interval }, emit)
}

// FollowEvery is Follow with the pause before each look asked of every
// (a follower that must be quick while a launch starts, and may look less
// often once it runs).
func (t *Tail) FollowEvery(ctx context.Context, every func() time.Duration, emit func(string)) error {
	return t.FollowWoken(ctx, every, nil, func(b []byte) { emit(string(b)) }, nil)
}

// FollowWoken is FollowEvery with each line as bytes, valid only until
// emit returns, that also looks at once when woken (a receive from wake:
// Changes; nil: only on its clock) and calls drained (when not nil) each
// time it has emitted all the file holds now, before it waits: an emit
// that gathers lines writes them out there, in one write, instead of one
// write (and one string) per line of a chatty worker.
func (t *Tail) FollowWoken(ctx context.Context, every func() time.Duration, wake <-chan struct{}, emit func([]byte), drained func()) error {
	timer := time.NewTimer(every())
	defer timer.Stop()
	if drained == nil {
		drained = func() {}
	}
	for {
		if err := t.drain(emit, -1); err != nil {
			return err
		}
		if ctx.Err() != nil {
			t.flush(emit)
			drained()
			return nil
		}
		err := t.reopen(emit)
		drained()
		if err != nil {
			return err
		}
		select {
		case <-ctx.Done():
		case <-timer.C:
			timer.Reset(every())
		case <-wake:
		}
	}
}

// reopen switches to the file the path names now when that is another
// file, and starts over when the file shrank below what was read.
func (t *Tail) reopen(emit func([]byte)) error {
	if fi, err := t.f.Stat(); err == nil && fi.Size() < t.off {
		t.partial = t.partial[:0]
		t.off = 0
		_, err := t.f.Seek(0, io.SeekStart)
		return err
	}
	fi, err := os.Lstat(t.path)
	if err != nil {
		return nil // between the rename and the new file: look again later
	}
	if os.SameFile(fi, t.fi) {
		return nil
	}
	f, nfi, err := open(t.path)
	if err != nil {
		return nil
	}
	// What the old file got after the last read belongs before the new one.
	if err := t.drain(emit, -1); err != nil {
		f.Close()
		return err
	}
	t.flush(emit)
	t.f.Close()
	t.f, t.fi, t.off = f, nfi, 0
	return nil
}
