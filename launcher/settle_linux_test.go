package launcher

import (
	"context"
	"runtime"
	"testing"
	"time"

	"github.com/childproof/childproof/launcher/exectrace"
)

// TestSettle: once its launches have been stopped, Settle leaves the
// process as it was before the first: no watchdog child, no tracer
// thread waiting for the next start, no goroutine of theirs (what
// goleak's VerifyNone would see), where both would otherwise linger 2 s.
func TestSettle(t *testing.T) {
	f := newFixture(t)
	l := f.spec("settle")
	l.Ready.HTTP = ""
	if !Settle(10 * time.Second) {
		t.Fatal("Settle before any launch: something lingers already")
	}
	goroutines := runtime.NumGoroutine()
	for range 2 {
		la, err := Start(context.Background(), l, Options{State: f.state})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := la.Stop(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	if !Settle(10 * time.Second) {
		t.Fatal("Settle: the watchdog or a tracer thread is still there after 10 s")
	}
	if n := exectrace.IdleThreads(); n != 0 {
		t.Errorf("%d tracer threads wait for a start after Settle", n)
	}
	if kids := ourChildren(t); len(kids) != 0 {
		t.Errorf("processes left after Settle: %v", kids)
	}
	// The last launch's own goroutines (its Wait, its output's reader)
	// may still be returning.
	for end := time.Now().Add(10 * time.Second); runtime.NumGoroutine() > goroutines && time.Now().Before(end); time.Sleep(5 * time.Millisecond) {
	}
	if g := runtime.NumGoroutine(); g > goroutines {
		buf := make([]byte, 1<<20)
		t.Errorf("%d goroutines after Settle, %d before the launches:\n%s", g, goroutines, buf[:runtime.Stack(buf, true)])
	}
}
