package treelook

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestPacerInterval(t *testing.T) {
	woken := &Pacer{Lines: make(chan struct{})}
	deaf := &Pacer{}
	tests := []struct {
		p      *Pacer
		waited time.Duration
		want   time.Duration
	}{
		{woken, 0, 4 * time.Millisecond},
		{deaf, 0, time.Millisecond},
		{woken, 199 * time.Millisecond, 4 * time.Millisecond},
		{deaf, 199 * time.Millisecond, time.Millisecond},
		{woken, 200 * time.Millisecond, 5 * time.Millisecond},
		{deaf, 999 * time.Millisecond, 5 * time.Millisecond},
		{woken, time.Second, 20 * time.Millisecond},
		{deaf, listenSlowAfter, 50 * time.Millisecond},
		{woken, time.Hour, 50 * time.Millisecond},
	}
	var got, want []time.Duration
	for _, tt := range tests {
		got = append(got, tt.p.Interval(tt.waited))
		want = append(want, tt.want)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Interval (-want +got):\n%s", diff)
	}
}

// TestPacerWoken: a line ends a 50 ms pause (the line is taken, not left
// for the next one), and a look woken by a second line right after comes
// no sooner than minGap after the one before.
func TestPacerWoken(t *testing.T) {
	lines := make(chan struct{}, 1)
	p := &Pacer{Began: time.Now().Add(-listenSlowAfter), Lines: lines}
	// The line is there before the pause: the select takes it unless the
	// 50 ms timer fired first, which only a stalled machine makes happen
	// (then the line is still there: try again).
	for i := 0; ; i++ {
		lines <- struct{}{}
		p.Pause()
		if len(lines) == 0 {
			break
		}
		<-lines
		if i == 20 {
			t.Fatal("Pause never took a waiting line")
		}
	}
	first := p.last
	lines <- struct{}{}
	p.Pause()
	if gap := p.last.Sub(first); gap < minGap {
		t.Errorf("two looks woken by lines %v apart, want at least %v", gap, minGap)
	}
}

// TestPacerSeenEvent: an event the last look already saw (Seen) is taken
// without ending the pause; one it did not see ends it.
func TestPacerSeenEvent(t *testing.T) {
	events := make(chan struct{}, 1)
	seen := true
	p := &Pacer{Began: time.Now().Add(-listenSlowAfter), Events: events, Seen: func() bool { return seen }}
	events <- struct{}{}
	began := time.Now()
	p.Pause()
	if waited := time.Since(began); waited < 50*time.Millisecond || len(events) != 0 {
		t.Fatalf("a seen event: paused %v (want the whole 50 ms), %d events left (want it taken)", waited, len(events))
	}
	seen = false
	for i := 0; ; i++ {
		events <- struct{}{}
		p.Pause()
		if len(events) == 0 {
			break
		}
		<-events // (the timer fired first on a stalled machine: again)
		if i == 20 {
			t.Fatal("Pause never took an unseen event")
		}
	}
}
