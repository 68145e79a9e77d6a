package logrelay

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/childproof/childproof/redact"
)

const canary = "CANARY-relay-7d1e0b"

// TestMain lets the test binary be the relay, as launcher.RelayMain lets
// a program that asks.
func TestMain(m *testing.M) {
	if Started() {
		os.Exit(Run())
	}
	os.Exit(m.Run())
}

// TestCopyAcrossReads: a value cut by the pipe's read boundary (a worker
// line longer than the 64 KiB read) is still masked.
func TestCopyAcrossReads(t *testing.T) {
	set := redact.Of([]redact.Secret{{Name: "K", Value: canary}}, nil)
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	line := strings.Repeat("x", Buf-7) + canary + strings.Repeat("y", Buf) + "\n"
	go func() {
		// Two writes cut inside the value, as a worker's own buffering may.
		w.Write([]byte(line[:Buf-3]))
		w.Write([]byte(line[Buf-3:]))
		w.Close()
	}()
	var out bytes.Buffer
	st := &Stats{}
	if err := Copy(r, &out, set, st); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(out.String(), canary) || out.String() != strings.Replace(line, canary, "<K>", 1) {
		t.Errorf("the log differs from the masked stream (len %d)", out.Len())
	}
	if !st.Done.Load() {
		t.Error("Stats.Done not set at the pipe's end")
	}
}

// failWriter fails every write (a full disk).
type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, syscall.ENOSPC }

// TestCopyKeepsReading: a log that cannot be written never blocks the
// tree: Copy reads to the pipe's end and reports the error.
func TestCopyKeepsReading(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- Copy(r, failWriter{}, redact.Of(nil, nil), nil) }()
	chunk := bytes.Repeat([]byte("z"), 1<<20)
	for range 8 { // 8 MiB: far more than a pipe holds
		if _, err := w.Write(chunk); err != nil {
			t.Fatal(err)
		}
	}
	w.Close()
	select {
	case err := <-done:
		if err == nil {
			t.Error("Copy hid the log's error")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Copy stopped reading")
	}
}

// startRelay starts this test binary as the relay (init dispatches) on
// a new output pipe and log file, with the secrets on its stdin.
func startRelay(t *testing.T, secrets []Secret) (*exec.Cmd, *os.File, string) {
	t.Helper()
	log := filepath.Join(t.TempDir(), "w.log")
	logf, err := os.OpenFile(log, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer logf.Close()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	sr, sw, _ := os.Pipe()
	rr, rw, _ := os.Pipe()
	cmd := &exec.Cmd{Path: "/proc/self/exe", Args: []string{Comm}, Env: []string{Env + "=" + Mode, "GOMAXPROCS=1"},
		Stdin: sr, Stdout: rw, ExtraFiles: []*os.File{r, logf}}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	sr.Close()
	rw.Close()
	json.NewEncoder(sw).Encode(secrets)
	sw.Close()
	b, _ := io.ReadAll(rr)
	rr.Close()
	if string(b) != "ready\n" {
		t.Fatalf("relay said %q, want ready", b)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	return cmd, w, log
}

func rssKB(t *testing.T, pid int) int {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "VmRSS:"); ok {
			n, _ := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(v), " kB"))
			return n
		}
	}
	return 0
}

// TestRelayProcess: the relay process masks what it relays (the secret
// comes on its stdin, never in its argv or environment), ends at the
// pipe's end, and stays small (its RSS is logged; the aim is 5 MB for
// the childproof binary, this test binary is bigger).
func TestRelayProcess(t *testing.T) {
	cmd, w, log := startRelay(t, []Secret{{Name: "K", Value: canary}})
	for _, f := range []string{"cmdline", "environ"} {
		b, _ := os.ReadFile("/proc/" + strconv.Itoa(cmd.Process.Pid) + "/" + f)
		if bytes.Contains(b, []byte(canary)) {
			t.Errorf("the relay's %s holds the secret", f)
		}
	}
	chunk := []byte(strings.Repeat("a line of output with the key "+canary+" in it\n", 1000))
	for range 200 { // about 12 MB
		if _, err := w.Write(chunk); err != nil {
			t.Fatal(err)
		}
	}
	rss := rssKB(t, cmd.Process.Pid)
	t.Logf("relay RSS after 12 MB relayed: %d kB", rss)
	if !raceDetector && rss > 12<<10 {
		t.Errorf("relay RSS %d kB", rss)
	}
	w.Close()
	if err := cmd.Wait(); err != nil {
		t.Fatalf("relay: %v", err)
	}
	b, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(b, []byte(canary)) {
		t.Error("the log holds the secret")
	}
	if want := bytes.Repeat(bytes.ReplaceAll(chunk, []byte(canary), []byte("<K>")), 200); !bytes.Equal(b, want) {
		t.Errorf("log: %d bytes, want %d", len(b), len(want))
	}
}

// TestRelayIgnoresSignals: SIGTERM, SIGINT, SIGHUP do not end the relay
// (the tree would lose its output); SIGPIPE neither.
func TestRelayIgnoresSignals(t *testing.T) {
	cmd, w, log := startRelay(t, nil)
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP, syscall.SIGPIPE} {
		cmd.Process.Signal(sig)
	}
	// Each is pending before the write below wakes the relay's read: one
	// that ended it would end it before it relays the line.
	if _, err := w.Write([]byte("still relayed\n")); err != nil {
		t.Fatal(err)
	}
	w.Close()
	if err := cmd.Wait(); err != nil {
		t.Fatalf("relay: %v", err)
	}
	if b, _ := os.ReadFile(log); string(b) != "still relayed\n" {
		t.Errorf("log = %q", b)
	}
}

// TestRelayKilled defines what a SIGKILL of the relay does to the tree:
// its next write to stdout fails with EPIPE (a writer that does not
// ignore SIGPIPE is killed by it). It never blocks.
func TestRelayKilled(t *testing.T) {
	cmd, w, _ := startRelay(t, nil)
	cmd.Process.Kill()
	cmd.Wait()
	done := make(chan error, 1)
	go func() {
		_, err := w.Write([]byte("after the relay died\n"))
		done <- err
	}()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "broken pipe") {
			t.Errorf("write after the relay died: %v, want EPIPE", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the write blocked")
	}
}

// TestRelayEndSignal: EndSignal ends a relay whose pipe is still held (a
// process that escaped the tree keeps the write end) — and what was
// written before it is in the log, masked, not lost.
func TestRelayEndSignal(t *testing.T) {
	cmd, w, log := startRelay(t, []Secret{{Name: "K", Value: canary}})
	defer w.Close()
	// A pipe that holds it all: the writes never wait for the relay.
	syscall.Syscall(syscall.SYS_FCNTL, w.Fd(), syscall.F_SETPIPE_SZ, 1<<20)
	chunk := []byte(strings.Repeat("the last lines, key "+canary+"\n", 1000))
	for range 20 { // about 0.6 MB: more than one read of the relay
		if _, err := w.Write(chunk); err != nil {
			t.Fatal(err)
		}
	}
	if err := cmd.Process.Signal(EndSignal); err != nil {
		t.Fatal(err)
	}
	// It ends although the write end stays open (a hang is the test's
	// timeout).
	if err := cmd.Wait(); err != nil {
		t.Fatalf("relay: %v", err)
	}
	b, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	if want := bytes.Repeat(bytes.ReplaceAll(chunk, []byte(canary), []byte("<K>")), 20); !bytes.Equal(b, want) {
		t.Errorf("log: %d bytes, want the %d written before the end", len(b), len(want))
	}
}
