package console

import (
	"bytes"
	"testing"
	"time"

	"github.com/childproof/childproof/launcher"
	"github.com/google/go-cmp/cmp"
)

// TestView: a view feeds launcher.Options — nothing for a detached launch
// off a terminal, every output line in the foreground, and on a live
// console a status line that goes when the start returns.
func TestView(t *testing.T) {
	t.Run("detached off a terminal shows nothing", func(t *testing.T) {
		var o launcher.Options
		New(&bytes.Buffer{}, Options{}).View("api", false).Attach(&o)
		if o.Progress != nil || o.Output != nil {
			t.Fatalf("Progress %v, Output %v: want both nil", o.Progress != nil, o.Output != nil)
		}
	})
	t.Run("foreground streams every line", func(t *testing.T) {
		var b bytes.Buffer
		c := New(&b, Options{Prefix: true})
		var o launcher.Options
		v := c.View("api", true)
		v.Attach(&o)
		o.Progress(launcher.Progress{Name: "api", Phase: launcher.PhaseWorker, Started: time.Now(), Timeout: time.Second})
		o.Output.Write([]byte("one\ntwo\n"))
		o.Output.Write(nil)
		v.Started()
		c.Close()
		if diff := cmp.Diff("api | one\napi | two\n", b.String()); diff != "" {
			t.Errorf("(-want +got):\n%s", diff)
		}
	})
	t.Run("detached on a terminal: status line with the last line, gone at Started", func(t *testing.T) {
		var b bytes.Buffer
		now := time.Date(2026, 12, 1, 3, 0, 0, 0, time.UTC)
		c := New(&b, Options{Live: true, Tick: time.Hour, Now: func() time.Time { return now }, Width: func() int { return 200 }})
		var o launcher.Options
		v := c.View("api", false)
		v.Attach(&o)
		o.Progress(launcher.Progress{Name: "api", Phase: launcher.PhaseListen, Worker: 42, Comm: "python3", Address: "127.0.0.1:8000", Started: now, Timeout: 10 * time.Second})
		o.Output.Write([]byte("loading\nweights 50%\n"))
		c.Write([]byte("report\n"))
		got := screen(t, b.String())
		if want := "… waiting for pid 42 (python3) to listen on 127.0.0.1:8000 · 0s of 10s · last output: weights 50%"; len(got) < 2 || got[1] != want {
			t.Fatalf("screen = %q, want the status line %q", got, want)
		}
		v.Started()
		v.Started() // a second call is harmless
		c.Write([]byte("done\n"))
		got = screen(t, b.String())
		if diff := cmp.Diff([]string{"report", "done", ""}, got); diff != "" {
			t.Errorf("after Started (-want +got):\n%s", diff)
		}
		c.Close()
	})
}
