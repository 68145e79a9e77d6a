package launcher

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/childproof/childproof/launcher/exectrace"
)

// TestDetachForkBeforeExec: a launch script that forks before it execs
// the server (a command substitution through a pipe, as a pyenv/nvm shim
// or a settings reader does) is detached without the tracer waiting out
// its timeout for a child it lost track of (issue 37: 5 s in a third of
// runs). What is asserted: the detach's timeout branch is never taken,
// and each detached start returns (the state waited for) within 1 s
// where the issue asks it (load average ≤ 2); on a busier machine a
// return after 1 s is logged, and one after the detach timeout fails.
// 20 runs: a stall in a third of runs, as the issue's, passes all 20 with
// probability (2/3)^20 = 0.03% (50 runs took 36 s of make test's unit
// stage under -race for 1.6e-9); -short runs 10. The server and the log
// relay are the test server, not this race binary: the tracer's detach is
// what is tested, and each run started two race binaries (0.3 CPU-s).
func TestDetachForkBeforeExec(t *testing.T) {
	f := newFixture(t)
	srv := testServerPath(t)
	script := filepath.Join(t.TempDir(), "launch.sh")
	body := "#!/bin/bash\nx=$(echo a | cut -c1)\ny=$(echo \"$x\" | tr a b)\nexec " + srv + " serve \"$1\"\n"
	if err := os.WriteFile(script, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
	runs := 20
	if testing.Short() {
		runs = 10
	}
	before := exectrace.DetachTimeouts()
	var slowest time.Duration
	for i := range runs {
		l := f.spec("forkexec")
		l.Command = []string{script, "127.0.0.1:" + strconv.Itoa(f.port)}
		l.Ready.HTTP = ""
		l.Worker.Comm = filepath.Base(srv)
		start := time.Now()
		la, err := Start(context.Background(), l, Options{State: f.state, Detach: true, Relay: srv})
		if err != nil {
			t.Fatalf("run %d: %v", i, err)
		}
		took := time.Since(start)
		slowest = max(slowest, took)
		if took > time.Second {
			load := loadAverage1()
			switch {
			case took >= exectrace.DetachTimeout:
				t.Errorf("run %d: the detached start took %s (the %s stall), load %.1f", i, took, exectrace.DetachTimeout, load)
			case load <= 2:
				t.Errorf("run %d: the detached start took %s, over 1 s at load %.1f", i, took, load)
			default:
				t.Logf("run %d: the detached start took %s at load %.1f (over 1 s, not the stall)", i, took, load)
			}
		}
		if _, err := StopRecord(context.Background(), procDefault, f.state, la.Record, 0); err != nil {
			t.Fatalf("run %d: stop: %v", i, err)
		}
		if n := exectrace.DetachTimeouts() - before; n > 0 {
			t.Fatalf("run %d: the detach waited out its %s timeout %d time(s)", i, exectrace.DetachTimeout, n)
		}
	}
	t.Logf("%d detached runs, slowest %s", runs, slowest)
}

// loadAverage1 is the machine's 1-minute load average (0 when unknown).
func loadAverage1() float64 {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return 0
	}
	f, _ := strconv.ParseFloat(strings.Fields(string(b))[0], 64)
	return f
}
