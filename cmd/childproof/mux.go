package main

import (
	"context"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/childproof/childproof/internal/logtail"
	"github.com/childproof/childproof/launcher"
)

// mux shows the output of several launches on one writer, each line
// prefixed with its launch's name ("api    | …") and secret values masked,
// by following each launch's log in the state dir.
type mux struct {
	w      io.Writer
	mu     sync.Mutex
	width  int
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
	names  map[string]bool // launches followed already
}

func newMux(w io.Writer, members []*upMember) *mux {
	ctx, cancel := context.WithCancel(context.Background())
	m := &mux{w: w, ctx: ctx, cancel: cancel, names: map[string]bool{}}
	for _, mb := range members {
		m.width = max(m.width, len(mb.l.Name))
	}
	return m
}

// follow prints la's log from its start. A restarted launch writes a new
// log under the same path; the follower already there goes on with it.
func (m *mux) follow(name string, la *launcher.Launch) {
	if m.names[name] {
		return
	}
	t, err := logtail.Open(la.LogPath())
	if err != nil {
		return
	}
	m.names[name] = true
	mask := la.Env.Secrets()
	prefix := name + strings.Repeat(" ", m.width-len(name)) + " | "
	emit := func(line string) {
		m.mu.Lock()
		io.WriteString(m.w, prefix+mask.Text(line)+"\n")
		m.mu.Unlock()
	}
	m.wg.Add(1)
	go func() {
		defer m.wg.Done()
		defer t.Close()
		if err := t.Last(-1, emit); err != nil {
			return
		}
		t.Follow(m.ctx, 50*time.Millisecond, emit)
	}()
}

// close prints what is left to print and stops following.
func (m *mux) close() {
	m.cancel()
	m.wg.Wait()
}
