package treelook

import "time"

// listenSlowAfter is how long the find loop looks for the listener every
// 20 ms before it looks every 50 ms.
const listenSlowAfter = 10 * time.Second

// minGap is the least time between two looks, however often the pacer is
// woken: a server printing thousands of lines a second while it starts
// costs no more looks than the 1 ms polling did.
const minGap = time.Millisecond

// Pacer spaces the find loop's looks for the worker and its listener:
// every 4 ms up to 200 ms (1 ms when nothing can wake it), 5 ms to 1 s,
// 20 ms to listenSlowAfter, then 50 ms; a line of the tree's output or an
// event of its tree (a fork, an exec, an exit; the proc connector's come
// coalesced, up to 40 ms late) ends a pause early. So a server that says
// it listens, as most do, is looked at at once, one that says nothing
// within 4 ms of its listen, and a worker that prints its bind error is
// looked at while the stranger that made it fail still holds the port
// (silent, a stranger that holds the port for less than 4 ms can go
// unseen, as one of less than 2 ms could before). Each look is a wake-up
// of the process: one that finds nothing changed costs ~0.15 ms with the
// thread wake-ups it takes (Looker.Changed), so looking every 4 ms keeps
// the wait under 4% of a core, the contract's "a few percent" (every
// 2 ms was ~7%; every 1 ms cost a library start a tenth more CPU and
// found mock-llm no sooner). Pauses are
// always parked (a timer and channels), never in a syscall: the runtime's
// sysmon takes a P back from a goroutine blocked in one, which counts as
// work and keeps it waking every 20 µs while the looks go on (measured: a
// 200 µs nanosleep between the first looks made sysmon a tenth of a
// library start's CPU). The zero Pacer (no Began, no wake-ups) paces
// from the first Pause; it is not safe for concurrent use.
type Pacer struct {
	// Began is when the looks began.
	Began time.Time
	// Lines and Events get a value on each line the tree prints and each
	// event of its tree; nil: none.
	Lines, Events <-chan struct{}
	// Seen, when set, reports whether the events of the tree heard since
	// the last look happened before it (Looker.Seen): such an event
	// does not end a pause, the look already saw what it tells.
	Seen func() bool

	timer *time.Timer
	last  time.Time
}

// Interval is the pause after the looks have gone on for waited.
func (p *Pacer) Interval(waited time.Duration) time.Duration {
	switch {
	case waited >= listenSlowAfter:
		return 50 * time.Millisecond
	case waited < 200*time.Millisecond && p.Lines == nil && p.Events == nil:
		return time.Millisecond
	case waited < 200*time.Millisecond:
		return 4 * time.Millisecond
	case waited < time.Second:
		return 5 * time.Millisecond
	}
	return 20 * time.Millisecond
}

// Pause waits until the next look is due: Interval, or less when a line
// or an event comes, but never less than minGap after the last look.
func (p *Pacer) Pause() {
	if p.Began.IsZero() {
		p.Began = time.Now()
	}
	p.wait(p.Interval(time.Since(p.Began)), true)
	if gap := minGap - time.Since(p.last); gap > 0 {
		p.wait(gap, false)
	}
	p.last = time.Now()
}

// wait parks for d, or until a line or an event comes when wakes is set.
func (p *Pacer) wait(d time.Duration, wakes bool) {
	if p.timer == nil {
		p.timer = time.NewTimer(d)
	} else {
		p.timer.Reset(d)
	}
	if !wakes {
		<-p.timer.C
		return
	}
	for {
		select {
		case <-p.timer.C:
			return
		case <-p.Lines:
		case <-p.Events:
			if p.Seen != nil && p.Seen() {
				continue
			}
		}
		p.timer.Stop()
		return
	}
}
