package launcher

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestReadinessBackoff: a server answering 503 for 1.5 s is probed with a
// backoff (10 ms doubling to 1 s), not every millisecond: at most twelve
// probes, however slow the machine.
func TestReadinessBackoff(t *testing.T) {
	f := newFixture(t)
	l := f.spec("busy")
	l.Command = []string{filepath.Join(f.bin, "mock-srv"), "helper", "busy", "127.0.0.1:" + strconv.Itoa(f.port), "1500ms"}
	t0 := time.Now()
	la, err := f.start(t, l, false)
	if err != nil {
		t.Fatal(err)
	}
	took := time.Since(t0)
	la.Stop(context.Background())
	b, _ := os.ReadFile(la.LogPath())
	n503 := strings.Count(string(b), "probe 503")
	if n503 == 0 || n503 > 12 {
		t.Errorf("%d probes answered 503 in 1.5 s, want 1–12 (a backoff)", n503)
	}
	// What the backoff costs after readiness (at most its last pause) is a
	// figure, not a test: a loaded machine stretches every pause. The
	// pauses themselves are TestProbePause's.
	t.Logf("%d probes answered 503; ready after %s", n503, took)
}

func TestProbePause(t *testing.T) {
	next := probePause(true)
	var got []time.Duration
	for range 9 {
		got = append(got, next())
	}
	want := []time.Duration{10, 20, 40, 80, 160, 320, 640, 1000, 1000}
	for i := range want {
		want[i] *= time.Millisecond
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
	if d := probePause(false)(); d != time.Millisecond {
		t.Errorf("TCP probe pause = %s", d)
	}
}
