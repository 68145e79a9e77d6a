package treeevents

import (
	"errors"
	"math"
	"sync"
	"time"

	"github.com/childproof/childproof/internal/proccn"
)

// hub is the process's one subscription to the proc connector, which
// every launch's Events shares: one socket and one reader for all
// launches at once, instead of one each that reads every event of the
// machine, and no socket made and closed per launch. While nothing
// listens the socket stays, out of the connector's group (Pause): the
// kernel queues nothing for it and its reader sleeps in the poller.
// Safe for concurrent use.
type hub struct {
	mu sync.Mutex
	// l is the listener (nil until the first Listen that got one);
	// paused is set while it is out of the group.
	l      *proccn.Listener
	paused bool
	// readerDone is closed once the reader of the latest listener has
	// returned.
	readerDone chan struct{}
	// subs are the Events listening: following a tree, or waiting for
	// Follow (pending, which the backlog is kept for).
	subs    map[*Events]struct{}
	pending int
	// backlog is the events read while some Events waited for Follow,
	// replayed to it then (those at or after its since).
	backlog []proccn.Event
}

var theHub = &hub{subs: map[*Events]struct{}{}}

// maxBacklog bounds the backlog: a launch forks its tree within
// milliseconds of its Listen, while a busy machine makes a few hundred
// events a second.
const maxBacklog = 1 << 16

// add subscribes te from now on (te.since); false when the connector
// cannot be had.
func (h *hub) add(te *Events) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.l == nil {
		l, err := proccn.Listen()
		if err != nil {
			return false
		}
		h.l = l
		done := make(chan struct{})
		h.readerDone = done
		go func() {
			defer close(done)
			h.read(l)
		}()
	} else if h.paused {
		if h.l.Resume() != nil {
			return false
		}
		h.paused = false
	}
	te.since = proccn.Now()
	h.subs[te] = struct{}{}
	h.pending++
	return true
}

// follow starts te's tree from root, with the tree's events read since
// te subscribed.
func (h *hub) follow(te *Events, root int) {
	h.mu.Lock()
	if _, ok := h.subs[te]; !ok || te.tree != nil {
		h.mu.Unlock()
		return
	}
	te.tree = proccn.NewTree(root)
	moved := te.lostEarly
	for _, e := range h.backlog {
		if e.Time >= te.since && te.tree.Note(e) {
			moved = true
			te.heardAt(e.Time)
		}
	}
	if te.lostEarly {
		te.heardAt(math.MaxUint64)
	}
	h.donePending()
	h.mu.Unlock()
	if moved {
		te.moved(te.lostEarly)
	}
}

// remove unsubscribes te; the last one out takes the socket out of the
// group.
func (h *hub) remove(te *Events) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if _, ok := h.subs[te]; !ok {
		return
	}
	delete(h.subs, te)
	if te.tree == nil {
		h.donePending()
	}
	if len(h.subs) == 0 && h.l != nil && !h.paused && h.l.Pause() == nil {
		h.paused = true
	}
}

// Settle closes the process's connector socket when no launch listens,
// rather than keep it out of the group for the next launch, and waits (up
// to timeout) until its reader has returned; it reports whether none is
// left. A later Listen subscribes anew.
func Settle(timeout time.Duration) bool {
	h := theHub
	h.mu.Lock()
	l, done := h.l, h.readerDone
	if l != nil && len(h.subs) > 0 {
		h.mu.Unlock()
		return false
	}
	h.l, h.paused = nil, false
	h.mu.Unlock()
	if l != nil {
		l.Close()
	}
	if done == nil {
		return true
	}
	end := time.NewTimer(timeout)
	defer end.Stop()
	select {
	case <-done:
		return true
	case <-end.C:
		return false
	}
}

// donePending notes that one pending Events stopped waiting (call with
// mu held); the backlog goes with the last.
func (h *hub) donePending() {
	h.pending--
	if h.pending == 0 {
		h.backlog = h.backlog[:0]
	}
}

// read is the hub's reader: it hands each batch of events to the trees
// they move and rings those, read at most every eventCoalesce after a
// batch that moved one, and backing off from otherCoalesce to
// otherCoalesceMax while none did.
func (h *hub) read(l *proccn.Listener) {
	var batch []proccn.Event
	var moved []*Events
	pause := otherCoalesce
	for {
		batch = batch[:0]
		err := l.Wait(func(e proccn.Event) { batch = append(batch, e) })
		lost := errors.Is(err, proccn.ErrOverrun)
		if err != nil && !lost {
			// The socket failed: its Events hear nothing more and say
			// so, and the next Listen subscribes anew.
			h.mu.Lock()
			if h.l == l {
				h.l, h.paused = nil, false
			}
			dropped := h.dropAll()
			h.mu.Unlock()
			l.Close()
			for _, te := range dropped {
				te.deafen()
			}
			return
		}
		h.mu.Lock()
		moved = h.dispatch(batch, lost, moved[:0])
		idle := len(h.subs) == 0 && h.paused
		h.mu.Unlock()
		for _, te := range moved {
			te.moved(lost)
		}
		switch {
		case idle:
			// Nothing listens and the socket is out of the group: the
			// next events come after a Listen.
			pause = otherCoalesce
		case len(moved) > 0:
			// A tree that forks in a loop wakes its waiters at most
			// every eventCoalesce: what happens meanwhile is queued
			// and read at once after it.
			time.Sleep(eventCoalesce)
			pause = otherCoalesce
		default:
			// The rest of the machine's events are read in batches:
			// at most one wake-up every pause for them.
			time.Sleep(pause)
			pause = min(2*pause, otherCoalesceMax)
		}
	}
}

// dropAll unsubscribes every Events, which the failed socket served
// (call with mu held): a later socket's events would reach them after a
// gap no event tells of.
func (h *hub) dropAll() []*Events {
	var dropped []*Events
	for te := range h.subs {
		dropped = append(dropped, te)
	}
	clear(h.subs)
	h.pending, h.backlog = 0, nil
	return dropped
}

// dispatch keeps batch for the Events waiting for Follow and hands it to
// the trees followed, appending to moved those it moved (every one when
// lost: the kernel dropped events); call with mu held.
func (h *hub) dispatch(batch []proccn.Event, lost bool, moved []*Events) []*Events {
	overflow := false
	if h.pending > 0 {
		h.backlog = append(h.backlog, batch...)
		if len(h.backlog) > maxBacklog {
			// A Follow this late is told events were lost.
			h.backlog, overflow = h.backlog[:0], true
		}
	}
	for te := range h.subs {
		if te.tree == nil {
			te.lostEarly = te.lostEarly || lost || overflow
			continue
		}
		hit := lost
		for _, e := range batch {
			// (An event from before te subscribed, read late, is not
			// its tree's: a pid it names may be reused since.)
			if e.Time >= te.since && te.tree.Note(e) {
				hit = true
				te.heardAt(e.Time)
			}
		}
		if lost {
			te.heardAt(math.MaxUint64)
		}
		if hit {
			moved = append(moved, te)
		}
	}
	return moved
}

// moved notes that te's tree moved (or events were lost) and wakes its
// waiters.
func (te *Events) moved(lost bool) {
	if lost {
		te.lost.Store(true)
	}
	te.heard.Store(true)
	te.gen.Add(1)
	te.ring()
}

// deafen notes that te hears its tree no more (its socket failed): Live
// is false from now on, and its waiters are woken to poll again.
func (te *Events) deafen() {
	te.heardAt(math.MaxUint64)
	te.deaf.Store(true)
	te.lost.Store(true)
	te.gen.Add(1)
	te.ring()
}
