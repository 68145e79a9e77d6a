package launcher

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/childproof/childproof/launcher/readiness"
	"github.com/childproof/childproof/outcome"
	"github.com/childproof/childproof/verify"
)

// TestReadinessRate: a server answering 503 for 1.5 s (and logging each
// probe, which wakes the wait) gets at most 20 probes in any second.
func TestReadinessRate(t *testing.T) {
	t.Parallel() // waits out a ready timeout or a busy server: beside the others that do
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
	if n503 == 0 || n503 > 2*readiness.MaxProbesPerSecond {
		t.Errorf("%d probes answered 503 in 1.5 s, want 1–%d (at most %d a second)", n503, 2*readiness.MaxProbesPerSecond, readiness.MaxProbesPerSecond)
	}
	t.Logf("%d probes answered 503; ready after %s", n503, took)
}

// TestReadyStatus: ready.status lists the answers that count: a server
// answering 503 is ready at its first answer with status = [503].
func TestReadyStatus(t *testing.T) {
	t.Parallel() // waits out a ready timeout or a busy server: beside the others that do
	f := newFixture(t)
	l := f.spec("status")
	l.Command = []string{filepath.Join(f.bin, "mock-srv"), "helper", "busy", "127.0.0.1:" + strconv.Itoa(f.port), "1h"}
	l.Ready.Status = []int{503}
	la, err := f.start(t, l, false)
	if err != nil {
		t.Fatal(err)
	}
	la.Stop(context.Background())
	// And 503 is not ready with status = [200]: the answer is named.
	l.Ready.Status, l.Ready.Timeout = []int{200}, 2*time.Second
	_, err = f.start(t, l, false)
	e := wantCode(t, err, outcome.Exited, verify.KindNotReady)
	if !strings.Contains(e.Error(), "503") {
		t.Errorf("not-ready failure does not name the answer: %v", e)
	}
}

// TestReadyExec: ready.exec runs in the launch's directory and
// environment until it exits 0; a command that never does is the
// not-ready failure with its last line.
func TestReadyExec(t *testing.T) {
	t.Parallel() // waits out a ready timeout or a busy server: beside the others that do
	f := newFixture(t)
	dir := t.TempDir()
	l := f.spec("exec")
	l.Dir = dir
	l.Ready.HTTP = ""
	l.Ready.Exec = []string{filepath.Join(f.bin, "mock-srv"), "helper", "ready-when", "ready-file"}
	go func() {
		time.Sleep(300 * time.Millisecond)
		os.WriteFile(filepath.Join(dir, "ready-file"), nil, 0o644)
	}()
	la, err := f.start(t, l, true)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "ready-file")); err != nil {
		t.Errorf("verified before ready.exec could exit 0: %v", err)
	}
	la.Stop(context.Background())

	// This one waits out its whole timeout: no port, so the probe runs from
	// the start (not once the -race worker listens), and a shell, so a run
	// of the command ends well within it at load (a whole timeout with no
	// run finished says only "cut short").
	l.Ports = nil
	l.Ready.Exec = []string{"sh", "-c", "echo not yet; exit 1"}
	l.Ready.Timeout = 2 * time.Second
	_, err = f.start(t, l, true)
	e := wantCode(t, err, outcome.Exited, verify.KindNotReady)
	if !strings.Contains(e.Error(), "not yet") || !strings.Contains(e.Error(), "exit status 1") {
		t.Errorf("not-ready failure lacks the command's exit and last line: %v", e)
	}
}

// TestReadyLog: ready.log waits for a line of the worker's output, with
// or without a port, foreground and detached.
func TestReadyLog(t *testing.T) {
	t.Parallel() // waits out a ready timeout or a busy server: beside the others that do
	for _, detach := range []bool{false, true} {
		t.Run(strconv.FormatBool(detach), func(t *testing.T) {
			f := newFixture(t)
			l := f.spec("log")
			l.Ports, l.Ready.HTTP = nil, ""
			l.Command = []string{filepath.Join(f.bin, "mock-srv"), "helper", "say-later", "300ms", "model loaded: ready"}
			l.Ready.Log = `^model loaded: (ready|done)$`
			t0 := time.Now()
			la, err := f.start(t, l, detach)
			if err != nil {
				t.Fatal(err)
			}
			if took := time.Since(t0); took < 300*time.Millisecond {
				t.Errorf("ready after %s, before the line was printed", took)
			}
			la.Stop(context.Background())
			l.Ready.Log, l.Ready.Timeout = `never printed`, time.Second
			_, err = f.start(t, l, detach)
			e := wantCode(t, err, outcome.Exited, verify.KindNotReady)
			if !strings.Contains(e.Error(), "never printed") {
				t.Errorf("not-ready failure does not name the pattern: %v", e)
			}
		})
	}
}

// TestVerdictAtOnce: a single worker while another member of its tree
// holds its port is exit 3 once the tree has stopped changing, not after
// ready.timeout (a minute here), with no "longer timeout" hint.
func TestVerdictAtOnce(t *testing.T) {
	f := newFixture(t)
	l := f.spec("other")
	l.Command = []string{"sh", "-c", f.srv + " serve 127.0.0.1:" + strconv.Itoa(f.port) + " & exec sleep 60"}
	l.Worker.Comm = "sleep"
	l.Ready.HTTP, l.Ready.Timeout = "", time.Minute
	t0 := time.Now()
	_, err := f.start(t, l, false)
	e := wantCode(t, err, outcome.Unproven, verify.KindPortNotOwned)
	if took := time.Since(t0); took > l.Ready.Timeout/2 {
		t.Errorf("told after %s, with a %s ready.timeout: it waited for the timeout", took, l.Ready.Timeout)
	}
	if strings.Contains(e.Hint, "longer") {
		t.Errorf("hint names a longer timeout, which was not the cause: %s", e.Hint)
	}
}
