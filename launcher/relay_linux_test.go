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
	"github.com/childproof/childproof/verify"
	"golang.org/x/sys/unix"
)

// TestDetachedRelay: a detached launch's output goes through its log
// relay, which the record names, which masks the secrets before the log
// (the worker prints its key, split across two writes of its own) and
// which ends with the tree.
func TestDetachedRelay(t *testing.T) {
	f := newFixture(t)
	f.relay = "" // the relay is what is tested: this race binary
	l := f.spec("relayed")
	// sh prints the key in two pieces, then execs the server.
	half := len(secret) / 2
	l.Command = append([]string{"sh", "-c", `printf 'key=%s' "$1"; sleep 0.05; printf '%s end\n' "$2"; shift 2; exec "$@"`, "sh", secret[:half], secret[half:]}, l.Command...)
	l.Worker.Comm = "mock-srv"
	l.Secret = []string{"MOCK_LLM_KEY"} // a literal env value is secret by the list
	la, err := f.start(t, l, true)
	if err != nil {
		t.Fatal(err)
	}
	rec := la.Record
	if rec.Relay == nil || rec.Relay.Check(procDefault) != verify.Alive {
		t.Fatalf("record's relay %+v: want a live relay", rec.Relay)
	}
	if b, _ := os.ReadFile(filepath.Join("/proc", strconv.Itoa(rec.Relay.Pid), "comm")); strings.TrimSpace(string(b)) != "childproof-log" {
		t.Errorf("relay comm %q", b)
	}
	// Start waited for the relay to log what the tree printed, but only
	// for so long (the pipe's drain is bounded: a worker that never stops
	// writing never lets it empty); a relay this loaded machine has not
	// scheduled yet logs it later. The log is read until the line is in it.
	var log []byte
	for end := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		log, err = os.ReadFile(la.LogPath())
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(log), " end\n") || time.Now().After(end) {
			break
		}
	}
	if strings.Contains(string(log), secret) || !strings.Contains(string(log), "key=<MOCK_LLM_KEY> end") {
		t.Errorf("log = %q, want the key masked", log)
	}
	if _, err := la.Stop(context.Background()); err != nil {
		t.Fatal(err)
	}
	for end := time.Now().Add(5 * time.Second); rec.Relay.Check(procDefault) == verify.Alive; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(end) {
			t.Fatal("the relay outlived the stopped tree")
		}
	}
}

// TestRelayGoneSaid: a relay killed while its tree runs is not silent:
// ps (Census) says so on the launch.
func TestRelayGoneSaid(t *testing.T) {
	f := newFixture(t)
	f.relay = "" // the relay is what is tested: this race binary
	la, err := f.start(t, f.spec("norelay"), true)
	if err != nil {
		t.Fatal(err)
	}
	rec := la.Record
	if rec.Relay == nil {
		t.Fatal("no relay recorded")
	}
	la.pipe.RelayProcess().Kill()
	for end := time.Now().Add(5 * time.Second); rec.Relay.Check(procDefault) == verify.Alive; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(end) {
			t.Fatal("the killed relay is still there")
		}
	}
	es, err := Census(procDefault, f.state, false)
	if err != nil || len(es) != 1 {
		t.Fatalf("census: %+v, %v", es, err)
	}
	if es[0].Status != StatusAlive || !strings.Contains(es[0].Note, "log relay (pid "+strconv.Itoa(rec.Relay.Pid)+") is gone") {
		t.Errorf("census entry: status %q, note %q; want alive and the relay named gone", es[0].Status, es[0].Note)
	}
}

// TestRelayEndsWithLaunch: a log relay never outlives its launch, also
// when something outside the tree keeps the output pipe open (here a
// process that cleared its environment and left the session: no marker,
// no cgroup, the documented escape). Launch.Stop, stop (StopRecord) and
// ps (Census, once the tree is gone) each end it, and the tree's last
// line is in the log.
func TestRelayEndsWithLaunch(t *testing.T) {
	for _, how := range []string{"Launch.Stop", "StopRecord", "Census"} {
		t.Run(how, func(t *testing.T) {
			f := newFixture(t)
			l := f.spec("escaped")
			pidfile := filepath.Join(t.TempDir(), "escaped.pid")
			l.Command = append([]string{"sh", "-c", `( env -i setsid sh -c 'echo $$ > "$0"; exec sleep 600' "$0" & ); echo last-words; exec "$@"`, pidfile}, l.Command...)
			la, err := Start(context.Background(), l, Options{State: f.state, Detach: true, Tracking: Tracking{NoCgroup: true}})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { la.Stop(context.Background()) })
			var escaped int
			waitFor(t, "the escaped pipe holder", func() bool {
				b, _ := os.ReadFile(pidfile)
				escaped, _ = strconv.Atoi(strings.TrimSpace(string(b)))
				return escaped > 0
			})
			t.Cleanup(func() { killEscaped(escaped) })
			rec := la.Record
			if rec.Relay == nil {
				t.Fatal("no relay recorded")
			}
			var note string
			switch how {
			case "Launch.Stop":
				if _, err := la.Stop(context.Background()); err != nil {
					t.Fatal(err)
				}
			case "StopRecord":
				res, err := StopRecord(context.Background(), procDefault, f.state, rec, 5*time.Second)
				if err != nil {
					t.Fatal(err)
				}
				note = res.Message
			case "Census":
				if fd, live, _ := rec.Worker.Open(procDefault); live == verify.Alive {
					unix.PidfdSendSignal(fd, unix.SIGKILL, nil, 0)
					unix.Close(fd)
				}
				waitFor(t, "the worker to go", func() bool { return rec.Worker.Check(procDefault) != verify.Alive })
				es, err := Census(procDefault, f.state, true)
				if err != nil || len(es) != 1 {
					t.Fatalf("census: %+v, %v", es, err)
				}
				if es[0].Status == StatusAlive {
					t.Errorf("census: a launch whose tree is gone is %q while its relay runs", es[0].Status)
				}
				note = es[0].Note
			}
			if rec.Relay.Check(procDefault) == verify.Alive {
				t.Fatalf("%s: the relay (pid %d) outlived the launch", how, rec.Relay.Pid)
			}
			if how != "Launch.Stop" && !strings.Contains(note, "log relay (pid "+strconv.Itoa(rec.Relay.Pid)+") outlived the tree") {
				t.Errorf("%s says %q, want the relay's end said", how, note)
			}
			if s, err := procDefault.Stat(escaped); err != nil || s.State == 'Z' {
				t.Error("the escaped holder, no member of the launch, was signalled")
			}
			if b, _ := os.ReadFile(la.LogPath()); !strings.Contains(string(b), "last-words") {
				t.Errorf("log = %q, want the tree's line", b)
			}
		})
	}
}

// killEscaped SIGKILLs, through a pidfd, the escaped sleep a test
// started (only while pid is still a sleep).
func killEscaped(pid int) {
	fd, err := unix.PidfdOpen(pid, 0)
	if err != nil {
		return
	}
	defer unix.Close(fd)
	if c, _ := procDefault.Comm(pid); c == "sleep" {
		unix.PidfdSendSignal(fd, unix.SIGKILL, nil, 0)
	}
}

// TestStartDeathSignal: a traced root starts with a parent-death signal,
// so that a childproof SIGKILLed between the fork and the root's
// PTRACE_TRACEME takes the root with it (re-parented, it would ask init
// to trace it and stop for ever after its execve). A foreground launch
// keeps it (the tree ends with its supervisor); a detached one has it
// cleared by the tracer before the root's first instruction, so it
// outlives the childproof that started it.
func TestStartDeathSignal(t *testing.T) {
	if !exectrace.CanClearDeathSignal {
		t.Skip("the parent-death signal is cleared on amd64 only")
	}
	for _, detach := range []bool{false, true} {
		t.Run(strconv.FormatBool(detach), func(t *testing.T) {
			f := newFixture(t)
			l := f.spec("deathsig")
			l.Command = []string{filepath.Join(f.bin, "mock-srv"), "helper", "deathsig", "127.0.0.1:" + strconv.Itoa(f.port)}
			la, err := f.start(t, l, detach)
			if err != nil {
				t.Fatal(err)
			}
			want := "parent-death signal 9"
			if detach {
				want = "parent-death signal 0"
			}
			waitFor(t, "the worker's line", func() bool {
				b, _ := os.ReadFile(la.LogPath())
				return strings.Contains(string(b), "parent-death signal")
			})
			if b, _ := os.ReadFile(la.LogPath()); !strings.Contains(string(b), want) {
				t.Errorf("log = %q, want %q", b, want)
			}
			if la.exec.watch == nil {
				t.Error("the launch was not traced")
			}
		})
	}
}
