package launcher

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/childproof/childproof/launcher/sigtree"
	"github.com/childproof/childproof/proc"
	"github.com/childproof/childproof/schema"
	"golang.org/x/sys/unix"
)

// reloadOnTerm is a launch of a server that treats SIGTERM as a reload
// (ignores it, as uWSGI does) and ends on SIGINT or SIGQUIT, with stop.
func reloadOnTerm(t *testing.T, f *fixture, stop schema.Stop) *schema.Launch {
	l := f.spec("reload")
	l.Command = []string{filepath.Join(f.bin, "mock-srv"), "helper", "reload-on-term", "127.0.0.1:" + strconv.Itoa(f.port)}
	l.Stop = stop
	return l
}

// TestStopSignalLibrary: the library's Stop sends the spec's stop signal
// first, so a server that ignores SIGTERM ends at once by SIGINT (its
// exit status says the signal), not by SIGKILL after the timeout.
func TestStopSignalLibrary(t *testing.T) {
	f := newFixture(t)
	la, err := f.start(t, reloadOnTerm(t, f, schema.Stop{Signal: "SIGINT", Timeout: 30 * time.Second}), false)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	res, err := la.Stop(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if res.Killed || !res.Signalled {
		t.Fatalf("stop: %+v, want signalled and not killed", res)
	}
	if took := time.Since(start); took > 20*time.Second {
		t.Errorf("stop took %s: it waited for the timeout", took)
	}
	if !strings.Contains(res.Message, "SIGINT") {
		t.Errorf("message %q does not name SIGINT", res.Message)
	}
	if code := la.Wait().ExitCode(); code != 128+int(unix.SIGINT) {
		t.Errorf("exit code %d, want %d (ended by SIGINT, not SIGKILL)", code, 128+int(unix.SIGINT))
	}
}

// TestStopSignalRecord: a detached launch records its stop block, and
// StopRecord (stop NAME, without the spec) uses it: SIGQUIT ends the
// server at once, where SIGTERM would be a reload and SIGKILL would come
// only after the timeout; a timeout given to StopRecord overrides the
// recorded one.
func TestStopSignalRecord(t *testing.T) {
	f := newFixture(t)
	la, err := f.start(t, reloadOnTerm(t, f, schema.Stop{Signal: "SIGQUIT", Timeout: 30 * time.Second}), true)
	if err != nil {
		t.Fatal(err)
	}
	rec, err := f.state.Load("reload")
	if err != nil {
		t.Fatal(err)
	}
	if rec.StopSignal != "SIGQUIT" || rec.StopTimeout != "30s" || rec.StopGrace() != 30*time.Second {
		t.Fatalf("record: stop_signal %q, stop_timeout %q", rec.StopSignal, rec.StopTimeout)
	}
	pidfd, err := unix.PidfdOpen(la.Pid(), 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(pidfd)
	start := time.Now()
	_, res, err := StopLaunch(context.Background(), proc.Default, f.state, "reload", 0, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.Killed || !res.Signalled || !res.Exited {
		t.Fatalf("stop: %+v, want signalled, exited, not killed", res)
	}
	if took := time.Since(start); took > 20*time.Second {
		t.Errorf("stop took %s: it waited for the timeout", took)
	}
	if !strings.Contains(res.Message, "with SIGQUIT") {
		t.Errorf("message %q does not name SIGQUIT", res.Message)
	}
	// The detached worker is childproof's child here (the test process
	// started it): its wait status says how it ended.
	var ws unix.WaitStatus
	if _, err := unix.Wait4(la.Pid(), &ws, 0, nil); err == nil && (!ws.Signaled() || ws.Signal() != unix.SIGQUIT) {
		t.Errorf("worker ended with %v, want killed by SIGQUIT", ws)
	}
}

// TestStopGraceOfRecord: the stop timeout a record keeps, and what
// overrides it.
func TestStopGraceOfRecord(t *testing.T) {
	for _, c := range []struct {
		rec     Record
		timeout time.Duration
		want    time.Duration
		sig     unix.Signal
	}{
		{Record{}, 0, DefaultStopGrace, unix.SIGTERM},
		{Record{StopTimeout: "3s", StopSignal: "SIGUSR1"}, 0, 3 * time.Second, unix.SIGUSR1},
		{Record{StopTimeout: "3s"}, time.Second, time.Second, unix.SIGTERM},
		{Record{StopTimeout: "junk", StopSignal: "SIGKILL"}, 0, DefaultStopGrace, unix.SIGTERM},
	} {
		if got := c.rec.StopGraceOr(c.timeout); got != c.want {
			t.Errorf("%+v stopGrace(%s) = %s, want %s", c.rec, c.timeout, got, c.want)
		}
		if got := sigtree.StopSignalOf(sigtree.StopSignalName(c.rec.StopSignal)); got != c.sig {
			t.Errorf("%+v signal = %v, want %v", c.rec, got, c.sig)
		}
	}
}

// TestStopSignalIgnoredByCaller: a launch inherits a signal its caller
// ignores, as an os/exec child does (an ignored disposition survives
// exec; Go resets only the signals it handles). A helper process started
// with SIGINT ignored (a background job of a shell) launches a server
// that does not set SIGINT itself with stop SIGINT: the server ignores
// it, and Stop ends it by SIGKILL after the grace. A caller that handles
// SIGINT (signal.Notify, as docs/library.md advises) passes the default
// on, and Stop ends the server by SIGINT at once.
func TestStopSignalIgnoredByCaller(t *testing.T) {
	for _, c := range []struct {
		mode string
		want string // the helper's "IGNORED KILLED CODE"
	}{
		{"plain", fmt.Sprintf("true true %d", 128+int(unix.SIGKILL))},
		{"notify", fmt.Sprintf("false false %d", 128+int(unix.SIGINT))},
	} {
		t.Run(c.mode, func(t *testing.T) {
			f := newFixture(t)
			// sh cannot undo an ignore it inherited, but one it sets
			// survives its exec of the helper.
			starter := exec.Command("sh", "-c", `trap "" INT; exec "$@"`, "sh",
				filepath.Join(f.bin, "helper"), "helper", "stop-int", f.state.Dir, filepath.Join(f.bin, "mock-srv"), strconv.Itoa(f.port), c.mode)
			out, err := starter.Output()
			if got := strings.TrimSpace(string(out)); err != nil || got != c.want {
				t.Fatalf("helper (SIGINT ignored, %s): %q (%v), want %q", c.mode, got, err, c.want)
			}
		})
	}
}

// sigIgnored reports whether process pid ignores sig (its SigIgn mask in
// /proc/PID/status).
func sigIgnored(pid int, sig unix.Signal) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return false
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "SigIgn:"); ok {
			mask, err := strconv.ParseUint(strings.TrimSpace(v), 16, 64)
			return err == nil && mask&(1<<(uint(sig)-1)) != 0
		}
	}
	return false
}
