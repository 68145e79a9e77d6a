package launcher

import (
	"context"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/childproof/childproof/launcher/memberwatch"
	"github.com/childproof/childproof/launcher/readiness"
	"github.com/childproof/childproof/schema"
)

// TestSuperviseTreeEvents: a member that appears after the launch was
// verified, carrying a protected name with another value, is reported by
// foreground supervision; as root the proc connector's exec event brings
// the look (not the 250 ms polling), and without it (non-root, or
// CHILDPROOF_NO_PROC_CONNECTOR) the polling still finds it.
func TestSuperviseTreeEvents(t *testing.T) {
	for _, connector := range []bool{true, false} {
		t.Run("connector="+strconv.FormatBool(connector), func(t *testing.T) {
			if connector && os.Geteuid() != 0 {
				t.Skip("the proc connector is used as root only")
			}
			if !connector {
				t.Setenv("CHILDPROOF_NO_PROC_CONNECTOR", "1")
			}
			f := newFixture(t)
			fifo := filepath.Join(t.TempDir(), "go")
			if err := syscall.Mkfifo(fifo, 0o600); err != nil {
				t.Fatal(err)
			}
			l := f.spec("events")
			l.Command = []string{"sh", "-c", f.srv + ` serve "$1" & read x < "$2"; MOCK_LLM_KEY=other sleep 60 & wait`, "sh", "127.0.0.1:" + strconv.Itoa(f.port), fifo}
			told := make(chan string, 4)
			la, err := Start(context.Background(), l, Options{State: f.state, Callbacks: Callbacks{Notify: func(s string) { told <- s }}})
			if err != nil {
				t.Fatal(err)
			}
			waited := make(chan ExitStatus, 1)
			go func() { waited <- la.Wait() }()
			defer func() { la.Stop(context.Background()); <-waited }()
			if connector {
				// The connector is heard once the tree moved: the server's
				// exec did. Its events come coalesced, up to 40 ms late (more
				// on a loaded machine), and a start may return before the
				// first: wait for it.
				if la.events == nil {
					t.Fatal("a foreground launch as root did not listen to the proc connector")
				}
				for end := time.Now().Add(10 * time.Second); !la.events.Live(); time.Sleep(5 * time.Millisecond) {
					if time.Now().After(end) {
						t.Fatal("the proc connector heard nothing of the tree in 10 s")
					}
				}
			} else if la.events != nil {
				t.Fatal("listening to the proc connector although CHILDPROOF_NO_PROC_CONNECTOR is set")
			}
			before := memberwatch.EventLooks()
			if err := os.WriteFile(fifo, []byte("go\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			select {
			case msg := <-told:
				if !strings.Contains(msg, "diverged after it was verified: MOCK_LLM_KEY") {
					t.Errorf("told %q", msg)
				}
			case <-time.After(20 * time.Second):
				t.Fatal("the diverged member was not reported")
			}
			looks := memberwatch.EventLooks() - before
			if connector {
				// The report may come from a paced look before the tree's
				// events (coalesced, up to 40 ms late, later under load)
				// arrive: they must still bring a look of their own.
				for end := time.Now().Add(10 * time.Second); looks == 0 && time.Now().Before(end); time.Sleep(5 * time.Millisecond) {
					looks = memberwatch.EventLooks() - before
				}
				if looks == 0 {
					t.Error("reported, but no look was brought by the tree's events in 10 s")
				}
			}
			if !connector && looks != 0 {
				t.Errorf("%d looks brought by events without the connector", looks)
			}
		})
	}
}

// TestReadyTreeEvents: as root, a fork or exec in the tree while the
// worker answers 503 wakes the readiness wait (a probe at once, within
// the budget) besides the paced probes; the launch is verified once the
// worker answers 200.
func TestReadyTreeEvents(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("the proc connector is used as root only")
	}
	f := newFixture(t)
	l := f.spec("treewake")
	srv := filepath.Join(f.bin, "mock-srv")
	l.Command = []string{"sh", "-c", srv + ` helper busy "$1" 1s & while :; do sleep 0.1; done`, "sh", "127.0.0.1:" + strconv.Itoa(f.port)}
	before := readiness.TreeWakes()
	la, err := f.start(t, l, true)
	if err != nil {
		t.Fatal(err)
	}
	if la.events == nil {
		t.Fatal("a detached launch probed by http did not listen to its tree's events")
	}
	if n := readiness.TreeWakes() - before; n == 0 {
		t.Error("no readiness wait was woken by the tree's events")
	}
}

// TestReadyListenEvents checks that a listening socket that appears in
// the tree while readiness probes wait wakes the wait: a silent worker
// listens on an undeclared port once the wait watches its sockets (from
// the second probe on), and the probe passes only once a wait was woken
// by that socket (the paced probes alone never make it pass).
func TestReadyListenEvents(t *testing.T) {
	f := newFixture(t)
	l := f.spec("listenwake")
	dir := t.TempDir()
	flag := filepath.Join(dir, "listen")
	addr := "127.0.0.1:" + strconv.Itoa(f.port)
	l.Command = []string{filepath.Join(f.bin, "mock-srv"), "helper", "listen-when", flag, addr}
	l.Ports = nil
	l.Ready = schema.Ready{Timeout: fixtureReady}
	before := readiness.ListenWakes()
	probes := 0
	ready := func(ctx context.Context) error {
		probes++
		if probes == 1 {
			// The wait takes its first look at the tree's sockets after
			// this probe failed: the worker listens only after that.
			return errors.New("not listening yet")
		}
		if probes == 2 {
			if err := os.WriteFile(flag, nil, 0o644); err != nil {
				return err
			}
			return errors.New("not listening yet")
		}
		if readiness.ListenWakes() == before {
			return errors.New("no wait woken by a listening socket yet")
		}
		c, err := net.Dial("tcp", addr)
		if err != nil {
			return err
		}
		return c.Close()
	}
	la, err := Start(context.Background(), l, Options{State: f.state, Ready: Readiness{Func: ready}})
	if la != nil {
		t.Cleanup(func() { la.Stop(context.Background()) })
	}
	if err != nil {
		t.Fatal(err)
	}
	if n := readiness.ListenWakes() - before; n == 0 {
		t.Error("no readiness wait was woken by the worker's new listening socket")
	}
}
