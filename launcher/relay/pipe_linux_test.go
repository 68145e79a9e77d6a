package relay

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/childproof/childproof/launcher/proctree"
	"github.com/childproof/childproof/redact"
)

// TestMain makes the test binary its own log relay (Main), as the
// childproof command is.
func TestMain(m *testing.M) {
	Main()
	os.Exit(m.Run())
}

// TestRelayDrainSeesIdle: Drain knows from the kernel that the relay has
// written what it read (its threads asleep, no read or write between two
// looks), not from a fixed pause, and the log then holds every line the
// tree wrote before it.
func TestRelayDrainSeesIdle(t *testing.T) {
	logf, err := os.Create(filepath.Join(t.TempDir(), "out.log"))
	if err != nil {
		t.Fatal(err)
	}
	o, err := Start(logf, redact.Of(nil, nil), "/proc/self/exe", proctree.NewMarker("drain"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		o.Close()
		<-o.Done()
	}()
	<-o.ready
	for end := time.Now().Add(10 * time.Second); ; time.Sleep(time.Millisecond) {
		q := relayQuiet(o.relay.Process.Pid)
		if !q.known {
			t.Fatal("the relay's /proc files cannot be read: drain would fall back to a fixed pause")
		}
		if q.idle {
			break
		}
		if time.Now().After(end) {
			t.Fatal("the relay waiting for output was never seen idle")
		}
	}
	for i := range 100 {
		fmt.Fprintf(o.w, "line %d\n", i)
	}
	o.Drain(10 * time.Second)
	b, err := os.ReadFile(logf.Name())
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(string(b), "line 99\n") || strings.Count(string(b), "\n") != 100 {
		t.Errorf("log after drain = %q, want the 100 lines written before it", b)
	}
}
