package readiness

import "time"

// Readiness probing is paced by what happens, within a budget: a probe
// runs at once when something changed (the worker printed a line, a
// member of the tree forked, exec'd or exited), and again eventFollowUp
// later; with nothing happening, every probeEvery, which grows once the
// wait has lasted probeSlowAfter, up to probeSlowest. probeEvery leaves
// part of the budget unspent, so that an event finds it: never more
// than MaxProbesPerSecond probes in any second.
const (
	probeEvery         = 65 * time.Millisecond
	eventFollowUp      = 15 * time.Millisecond
	probeSlowAfter     = 10 * time.Second
	probeSlowest       = time.Second
	MaxProbesPerSecond = 20
)

// pacer spaces readiness probes: the next is due every after the last
// (probeEvery, slower once the wait has lasted probeSlowAfter), or
// eventFollowUp after it while an event's follow-ups last; an event
// makes a probe due at once. All of them spend one budget, a token
// bucket refilled at probeRate up to probeBurst: never more than
// probeBurst + probeRate = MaxProbesPerSecond in any second, and a
// worker that logs every probe it is sent (an access log, which makes
// each probe an event) gets them evenly spaced, not in bursts. Not safe
// for concurrent use.
type pacer struct {
	began, last time.Time
	every       time.Duration
	// tokens is the budget left at filled.
	tokens float64
	filled time.Time
	// followUps is how many probes an event still brings eventFollowUp
	// apart.
	followUps int
	// clock is the time (nil: time.Now; tests set their own).
	clock func() time.Time
}

func (p *pacer) now() time.Time {
	if p.clock != nil {
		return p.clock()
	}
	return time.Now()
}

// The probe budget: probeBurst probes at once, refilled at probeRate a
// second.
const (
	probeBurst = 3
	probeRate  = MaxProbesPerSecond - probeBurst
)

// newPacer returns a pacer whose wait begins now, with its budget full.
func newPacer() *pacer {
	now := time.Now()
	return &pacer{began: now, every: probeEvery, tokens: probeBurst, filled: now}
}

// fill brings the budget up to now.
func (p *pacer) fill(now time.Time) {
	if p.filled.IsZero() {
		p.tokens, p.filled = probeBurst, now
		return
	}
	p.tokens = min(probeBurst, p.tokens+now.Sub(p.filled).Seconds()*probeRate)
	p.filled = now
}

// ran notes a probe run now.
func (p *pacer) ran() {
	now := p.now()
	p.fill(now)
	p.tokens--
	p.last = now
	if p.followUps > 0 {
		p.followUps--
	}
	if now.Sub(p.began) > probeSlowAfter {
		p.every = min(p.every*5/4, probeSlowest)
	}
}

// event notes that something changed: a probe now (as soon as the
// budget allows) and one more eventFollowUp after it (a server may log
// that it is ready just before it answers so).
func (p *pacer) event() { p.followUps = 2 }

// earliest is when the budget allows the next probe.
func (p *pacer) earliest() time.Time {
	now := p.now()
	p.fill(now)
	if p.tokens >= 1 {
		return now
	}
	return now.Add(time.Duration((1 - p.tokens) / probeRate * float64(time.Second)))
}

// due is when the next probe runs.
func (p *pacer) due() time.Time {
	if p.last.IsZero() && p.followUps == 0 {
		return p.earliest()
	}
	at := p.last.Add(p.every)
	if p.followUps > 0 {
		at = p.last.Add(eventFollowUp)
		if p.followUps == 2 {
			at = time.Time{} // the event's own probe: now
		}
	}
	if e := p.earliest(); e.After(at) {
		at = e
	}
	return at
}
