package readiness

import (
	"testing"
	"time"
)

// TestPacer: probes are probeEvery apart without events; an event
// brings one at once and one eventFollowUp later; and whatever the
// events, never more than MaxProbesPerSecond in any second, evenly
// spaced once the burst is spent.
func TestPacer(t *testing.T) {
	clock := time.Now()
	p := newPacer()
	p.clock = func() time.Time { return clock }
	if due := p.due(); due.After(clock) {
		t.Fatalf("first probe due in %s, want at once", due.Sub(clock))
	}
	p.ran()
	if d := p.due().Sub(p.last); d != probeEvery {
		t.Errorf("second probe %s after the first, want %s", d, probeEvery)
	}
	clock = clock.Add(10 * time.Millisecond)
	p.event()
	if due := p.due(); due.After(clock) {
		t.Errorf("an event's probe is due in %s, want at once", due.Sub(clock))
	}
	p.ran()
	if d := p.due().Sub(p.last); d != eventFollowUp {
		t.Errorf("an event's follow-up %s after its probe, want %s", d, eventFollowUp)
	}
	// Events all the time (a worker that logs every probe it is sent):
	// the count in every second stays in the budget.
	var runs []time.Time
	for range 200 {
		p.event()
		if d := p.due(); d.After(clock) {
			clock = d
		}
		p.ran()
		runs = append(runs, clock)
		clock = clock.Add(time.Millisecond) // the probe's echo
	}
	for i := range runs {
		n := 0
		for _, r := range runs[i:] {
			if r.Sub(runs[i]) < time.Second {
				n++
			}
		}
		if n > MaxProbesPerSecond {
			t.Fatalf("%d probes in the second from run %d, want at most %d", n, i, MaxProbesPerSecond)
		}
	}
	if gap := runs[100].Sub(runs[99]); gap < time.Second/probeRate-time.Millisecond {
		t.Errorf("once the burst is spent probes are %s apart, want %s", gap, time.Second/probeRate)
	}
	p.began = clock.Add(-time.Minute) // a long wait slows down
	p.followUps = 0
	for range 30 {
		if d := p.due(); d.After(clock) {
			clock = d
		}
		p.ran()
	}
	if d := p.due().Sub(p.last); d != probeSlowest {
		t.Errorf("after a minute probes are %s apart, want %s", d, probeSlowest)
	}
}
