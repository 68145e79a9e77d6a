package memberwatch

import (
	"strconv"
	"sync/atomic"
	"time"

	"github.com/childproof/childproof/proc"
	"github.com/childproof/childproof/verify"
)

// Watch is what foreground supervision knows of the tree's members since
// the launch was verified: the images it has judged (by pid, start time
// and where its last exec put its environment: a member seen between its
// fork and its exec is judged again once it has exec'd), the members it
// warned of, and when it last looked. Not safe for concurrent use
// (launcher holds the tree's lock).
type Watch struct {
	seen   map[int]string
	last   time.Time
	warned map[int]bool
}

// watchEvery is how often foreground supervision looks for new members of
// the tree (its cost: one listing of the tree, and reading the environ of
// the members that are new).
const watchEvery = 250 * time.Millisecond

// eventLooks counts supervision's looks at the tree that its events
// brought.
var eventLooks atomic.Int64

// EventLooks is how many of supervision's looks at the tree its events
// brought, in this process so far (tests tell the connector's wake-ups
// from the polling).
func EventLooks() int64 { return eventLooks.Load() }

// Judged notes the images of tree, read through p, as judged: the
// members the launch verified (the watch reports only what appears
// after them).
func (w *Watch) Judged(p proc.FS, tree []int) {
	w.seen, w.warned = map[int]string{}, map[int]bool{}
	for _, pid := range tree {
		if st, err := p.Stat(pid); err == nil {
			w.seen[pid] = imageKey(st)
		}
	}
}

// Saw notes pid's image, read through p, as judged (a worker adopted
// and judged as such); nothing before Judged.
func (w *Watch) Saw(p proc.FS, pid int) {
	if st, err := p.Stat(pid); err == nil && w.seen != nil {
		w.seen[pid] = imageKey(st)
	}
}

// Due reports whether supervision looks now: at once when the tree's
// events said it changed (moved), else at most every 250 ms.
func (w *Watch) Due(moved bool) bool { return moved || time.Since(w.last) >= watchEvery }

// Look lists the members of tree, read through p, whose image was not
// judged yet (the first look judges the tree as it is), and notes them
// judged; moved says the tree's events brought the look.
func (w *Watch) Look(p proc.FS, tree []int, moved bool) (fresh []int) {
	w.last = time.Now()
	if moved {
		eventLooks.Add(1)
	}
	if w.seen == nil {
		w.Judged(p, tree)
	}
	for _, pid := range tree {
		st, err := p.Stat(pid)
		if err != nil || st.State == 'Z' {
			continue
		}
		if k, ok := w.seen[pid]; !ok || k != imageKey(st) {
			fresh = append(fresh, pid)
			w.seen[pid] = imageKey(st)
		}
	}
	return fresh
}

// Warn reports whether pid was not warned of yet, and notes it warned.
func (w *Watch) Warn(pid int) bool {
	if w.warned[pid] {
		return false
	}
	w.warned[pid] = true
	return true
}

// imageKey names one image of a process: its start time and where its
// last exec put its environment area (an exec moves it).
func imageKey(st proc.Stat) string {
	return strconv.FormatUint(st.StartTime, 10) + "/" + verify.ExecArea(st)
}
