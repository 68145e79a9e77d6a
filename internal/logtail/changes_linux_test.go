package logtail

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestChanges checks that a write to the file wakes its watcher, and a
// look then reads the line: FollowWoken on a clock of an hour.
func TestChanges(t *testing.T) {
	path := filepath.Join(t.TempDir(), "w.log")
	if err := os.WriteFile(path, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	tl, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer tl.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ch := Changes(ctx, path)
	if ch == nil {
		t.Skip("no inotify here")
	}
	lines := make(chan string, 1)
	drained := make(chan struct{}, 8)
	go tl.FollowWoken(ctx, func() time.Duration { return time.Hour }, ch, func(b []byte) { lines <- string(b) }, func() {
		select {
		case drained <- struct{}{}:
		default:
		}
	})
	<-drained // the first look is done: the line comes after it
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString("ready\n"); err != nil {
		t.Fatal(err)
	}
	if got := <-lines; got != "ready" {
		t.Errorf("line %q, want %q", got, "ready")
	}
}
