package treeevents

import (
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/childproof/childproof/internal/proccn"
	"github.com/google/go-cmp/cmp"
)

// TestDispatch: a batch moves the followed trees it names, from the
// time each subscribed on; it is kept for an Events not following yet
// (replayed at Follow), and a loss moves every followed tree and is told
// to a pending one at Follow.
func TestDispatch(t *testing.T) {
	ev := func(k proccn.Kind, pid, parent int, at uint64) proccn.Event {
		return proccn.Event{Kind: k, Pid: pid, Tgid: pid, Parent: parent, ParentTgid: parent, Time: at}
	}
	newEvents := func(since uint64) *Events {
		return &Events{since: since, changed: make(chan struct{}, 1)}
	}
	tests := []struct {
		name      string
		batch     []proccn.Event
		lost      bool
		wantMoved []string
		// wantFollowMoved: whether the pending one moved when it
		// follows pid 30 after the batch.
		wantFollowMoved bool
	}{
		{name: "a fork in a", batch: []proccn.Event{ev(proccn.Fork, 11, 10, 200)}, wantMoved: []string{"a"}},
		{name: "an exec in each", batch: []proccn.Event{ev(proccn.Exec, 10, 0, 200), ev(proccn.Exec, 20, 0, 200)}, wantMoved: []string{"a", "b"}},
		{name: "b's exit before it subscribed", batch: []proccn.Event{ev(proccn.Exit, 20, 0, 150)}},
		{name: "another process", batch: []proccn.Event{ev(proccn.Exec, 99, 0, 200)}},
		{name: "the pending one's root forks", batch: []proccn.Event{ev(proccn.Fork, 31, 30, 400)}, wantFollowMoved: true},
		{name: "the pending one's pid before it subscribed", batch: []proccn.Event{ev(proccn.Exit, 30, 0, 250)}},
		{name: "lost", lost: true, wantMoved: []string{"a", "b"}, wantFollowMoved: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, b, c := newEvents(100), newEvents(180), newEvents(300)
			a.tree, b.tree = proccn.NewTree(10), proccn.NewTree(20)
			h := &hub{subs: map[*Events]struct{}{a: {}, b: {}, c: {}}, pending: 1}
			names := map[*Events]string{a: "a", b: "b", c: "c"}
			var got []string
			for _, te := range h.dispatch(tt.batch, tt.lost, nil) {
				got = append(got, names[te])
			}
			if len(got) == 2 && got[0] > got[1] {
				got[0], got[1] = got[1], got[0]
			}
			if diff := cmp.Diff(tt.wantMoved, got); diff != "" {
				t.Errorf("moved (-want +got):\n%s", diff)
			}
			h.follow(c, 30)
			if moved := c.heard.Load(); moved != tt.wantFollowMoved {
				t.Errorf("the pending one moved at Follow: %v, want %v", moved, tt.wantFollowMoved)
			}
			if c.lost.Load() != tt.lost {
				t.Errorf("the pending one lost events: %v, want %v", c.lost.Load(), tt.lost)
			}
			if len(h.backlog) != 0 || h.pending != 0 {
				t.Errorf("after the last Follow: backlog %d events, %d pending; want none", len(h.backlog), h.pending)
			}
		})
	}
}

// TestHeardBefore: a tree's events are heard before a time only when
// every one of them was stamped before it; another process's event, or
// one from before the tree subscribed, counts for nothing; a loss makes
// no time late enough.
func TestHeardBefore(t *testing.T) {
	ev := func(k proccn.Kind, pid int, at uint64) proccn.Event {
		return proccn.Event{Kind: k, Pid: pid, Tgid: pid, Time: at}
	}
	te := &Events{since: 100, changed: make(chan struct{}, 1)}
	te.tree = proccn.NewTree(10)
	h := &hub{subs: map[*Events]struct{}{te: {}}}
	if !te.HeardBefore(1) || te.HeardBefore(0) {
		t.Fatalf("nothing heard: HeardBefore(1) %v, HeardBefore(0) %v; want true, false (0 is no time)", te.HeardBefore(1), te.HeardBefore(0))
	}
	h.dispatch([]proccn.Event{ev(proccn.Exec, 10, 200), ev(proccn.Exec, 99, 500), ev(proccn.Exit, 10, 50)}, false, nil)
	if te.HeardBefore(200) || !te.HeardBefore(201) {
		t.Fatalf("the tree's exec stamped 200: HeardBefore(200) %v, HeardBefore(201) %v; want false, true", te.HeardBefore(200), te.HeardBefore(201))
	}
	h.dispatch(nil, true, nil)
	if te.HeardBefore(1 << 62) {
		t.Fatal("after a loss: heard before a time")
	}
}

// TestSharedListener: two launches' Events at once share the process's
// one listener, each hears its own tree's exec and exit (the exec
// happened between Listen and Follow, so from the kept backlog), and
// after both closed (the listener out of the group) a third Listen hears
// again.
func TestSharedListener(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("the proc connector is used as root only")
	}
	t.Setenv("CHILDPROOF_NO_PROC_CONNECTOR", "")
	run := func(name string) {
		t.Helper()
		ta, tb := Listen(), Listen()
		if ta == nil || tb == nil {
			t.Skip("the proc connector is not available here")
		}
		a := exec.Command("sh", "-c", "exec sleep 0.2")
		b := exec.Command("sh", "-c", "exec sleep 0.3")
		for _, c := range []*exec.Cmd{a, b} {
			if err := c.Start(); err != nil {
				t.Fatal(err)
			}
		}
		a.Wait() // exec'd and exited before Follow: all from the backlog
		ta.Follow(a.Process.Pid)
		tb.Follow(b.Process.Pid)
		b.Wait()
		for _, te := range []*Events{ta, tb} {
			select {
			case <-te.ChangedCh():
			case <-time.After(10 * time.Second):
			}
		}
		if !ta.Live() || !tb.Live() {
			if !ta.Live() && !tb.Live() {
				t.Skipf("%s: subscribed, but no event of the trees arrived (another network namespace?)", name)
			}
			t.Errorf("%s: heard a's tree %v, b's %v; want both", name, ta.Live(), tb.Live())
		}
		ta.Close()
		tb.Close()
		theHub.mu.Lock()
		n, paused := len(theHub.subs), theHub.paused
		theHub.mu.Unlock()
		if n != 0 || !paused {
			t.Errorf("%s: after both closed: %d listening, paused %v; want none, paused", name, n, paused)
		}
	}
	run("first")
	run("after a pause")
}

// TestListenerFails: when the shared socket fails, the Events it served
// stop saying they hear their trees (Live is false: their waits poll
// again) instead of waiting on events that no longer come, or come from a
// later socket with a gap; the next Listen subscribes anew and hears.
func TestListenerFails(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("the proc connector is used as root only")
	}
	t.Setenv("CHILDPROOF_NO_PROC_CONNECTOR", "")
	// hear starts sh, which execs sleep, follows it with a new Events and
	// waits until it is heard; the caller kills the sleep.
	hear := func(name string) (*Events, *exec.Cmd) {
		t.Helper()
		te := Listen()
		if te == nil {
			t.Skip("the proc connector is not available here")
		}
		c := exec.Command("sh", "-c", "exec sleep 60")
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Process.Kill(); c.Wait() })
		te.Follow(c.Process.Pid)
		for end := time.Now().Add(10 * time.Second); !te.Live() && time.Now().Before(end); {
			select {
			case <-te.ChangedCh():
			case <-time.After(10 * time.Millisecond):
			}
		}
		if !te.Live() {
			t.Skipf("%s: subscribed, but no event of the tree arrived (another network namespace?)", name)
		}
		return te, c
	}
	old, _ := hear("before the failure")
	defer old.Close()
	theHub.mu.Lock()
	l := theHub.l
	theHub.mu.Unlock()
	// A closed socket is what a failed one is to the reader: a read
	// error other than an overrun.
	l.Close()
	for end := time.Now().Add(10 * time.Second); old.Live() && time.Now().Before(end); {
		select {
		case <-old.ChangedCh():
		case <-time.After(10 * time.Millisecond):
		}
	}
	if old.Live() {
		t.Fatal("the socket failed, but its Events still says it hears its tree")
	}
	renewed, c := hear("after the failure")
	c.Process.Kill()
	c.Wait()
	renewed.Close()
	if old.Live() {
		t.Error("an Events of the failed socket hears again from the next one (with a gap)")
	}
}
