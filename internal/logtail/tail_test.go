package logtail

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func write(t *testing.T, path, s string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(s), 0o600); err != nil {
		t.Fatal(err)
	}
}

func TestLast(t *testing.T) {
	long := make([]string, 0, 20000)
	for i := range 20000 {
		long = append(long, fmt.Sprintf("line %05d", i))
	}
	for _, tc := range []struct {
		name    string
		content string
		n       int
		want    []string
	}{
		{"all", "a\nb\nc\n", -1, []string{"a", "b", "c"}},
		{"last two", "a\nb\nc\n", 2, []string{"b", "c"}},
		{"more than there are", "a\nb\n", 5, []string{"a", "b"}},
		{"none", "a\nb\n", 0, nil},
		{"no final newline", "a\nb\nc", 2, []string{"b", "c"}},
		{"empty lines count", "a\n\n\n", 2, []string{"", ""}},
		{"crlf", "a\r\nb\r\n", -1, []string{"a", "b"}},
		{"empty file", "", 3, nil},
		{"across chunks", strings.Join(long, "\n") + "\n", 3, long[len(long)-3:]},
		{"whole across chunks", strings.Join(long, "\n") + "\n", -1, long},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "x.log")
			write(t, path, tc.content)
			tl, err := Open(path)
			if err != nil {
				t.Fatal(err)
			}
			defer tl.Close()
			var got []string
			if err := tl.Last(tc.n, func(s string) { got = append(got, s) }); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("Last(%d) (-want +got):\n%s", tc.n, diff)
			}
		})
	}
}

func TestOpenRefuses(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "real"), "x\n")
	if err := os.Symlink(filepath.Join(dir, "real"), filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(filepath.Join(dir, "link")); err == nil {
		t.Error("Open followed a symlink")
	}
	if _, err := Open(dir); err == nil {
		t.Error("Open accepted a directory")
	}
}

// collector gathers emitted lines from Follow's goroutine.
type collector struct {
	mu    sync.Mutex
	lines []string
}

func (c *collector) emit(s string) { c.mu.Lock(); c.lines = append(c.lines, s); c.mu.Unlock() }

func (c *collector) waitFor(t *testing.T, n int) []string {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		c.mu.Lock()
		got := append([]string(nil), c.lines...)
		c.mu.Unlock()
		if len(got) >= n {
			return got
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatalf("timed out waiting for %d lines", n)
	return nil
}

func TestFollow(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.log")
	write(t, path, "old 1\nold 2\n")
	tl, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer tl.Close()
	var c collector
	if err := tl.Last(1, c.emit); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() { done <- tl.Follow(ctx, time.Millisecond, c.emit) }()

	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprint(f, "new 1\nhalf")
	c.waitFor(t, 2)
	fmt.Fprint(f, " done\n")
	c.waitFor(t, 3)
	// A new launch rotates the log: what the old file still gets comes
	// first, then the new file from its start.
	if err := os.Rename(path, path+".1"); err != nil {
		t.Fatal(err)
	}
	fmt.Fprint(f, "late old\n")
	f.Close()
	write(t, path, "next 1\nno newline")
	c.waitFor(t, 5)
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	want := []string{"old 2", "new 1", "half done", "late old", "next 1", "no newline"}
	if diff := cmp.Diff(want, c.lines); diff != "" {
		t.Errorf("Follow (-want +got):\n%s", diff)
	}
}

func TestFollowTruncated(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.log")
	write(t, path, "one\ntwo\n")
	tl, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer tl.Close()
	var c collector
	tl.Last(-1, c.emit)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() { done <- tl.Follow(ctx, time.Millisecond, c.emit) }()
	if err := os.Truncate(path, 0); err != nil {
		t.Fatal(err)
	}
	time.Sleep(20 * time.Millisecond)
	f, _ := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	fmt.Fprint(f, "three\n")
	f.Close()
	c.waitFor(t, 3)
	cancel()
	<-done
	if diff := cmp.Diff([]string{"one", "two", "three"}, c.lines); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestLongLine(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.log")
	write(t, path, strings.Repeat("x", MaxLine+10)+"\n")
	tl, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer tl.Close()
	var lens []int
	tl.Last(-1, func(s string) { lens = append(lens, len(s)) })
	if diff := cmp.Diff([]int{MaxLine, 10}, lens); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}
