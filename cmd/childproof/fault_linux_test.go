package main

// The fault suite, CLI half: real `childproof` processes (the test binary
// that testscript.Main puts on PATH) killed, starved of their state dir, or
// racing each other. The library half is launcher/fault_test.go. Every
// process a test starts — a childproof, or a worker it launched, known
// from the pid file the worker writes — is cleaned up through a pidfd.

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/childproof/childproof/internal/sockdiag"
	"github.com/childproof/childproof/launcher/launchertest"
	"github.com/childproof/childproof/proc"
	"golang.org/x/sys/unix"
)

// faultEnv is one test's spec dir, state dir and ports.
type faultEnv struct {
	t     *testing.T
	dir   string
	state string
}

func newFaultEnv(t *testing.T) *faultEnv {
	t.Helper()
	if _, err := exec.LookPath("childproof"); err != nil {
		t.Skip("childproof is not on PATH (testscript.Main sets it up)")
	}
	d := t.TempDir()
	return &faultEnv{t: t, dir: d, state: filepath.Join(d, "state")}
}

// spec writes d/NAME.hcl: a launch NAME of the test server on a free port
// and returns the spec's path, the port and the worker's pid file.
// extraEnv lines go into the launch's env block.
func (e *faultEnv) spec(name string, extraEnv ...string) (string, int, string) {
	e.t.Helper()
	port := freeTCPPort(e.t)
	pidfile := filepath.Join(e.dir, name+".pid")
	// GORACE: a -race binary sleeps 1 s at exit by default.
	env := fmt.Sprintf("    CHILDPROOF_TEST_SERVE = \"127.0.0.1:%d\"\n    CHILDPROOF_FAULT_PIDFILE = %q\n    GORACE = \"atexit_sleep_ms=0\"\n", port, pidfile)
	for _, x := range extraEnv {
		env += "    " + x + "\n"
	}
	src := fmt.Sprintf("launch %q {\n  command = [\"childproof\"]\n  env = {\n%s  }\n  port \"http\" {\n    number = %d\n  }\n  ready {\n    timeout = \"20s\"\n  }\n}\n", name, env, port)
	path := filepath.Join(e.dir, name+".hcl")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		e.t.Fatal(err)
	}
	return path, port, pidfile
}

func freeTCPPort(t *testing.T) int {
	t.Helper()
	return launchertest.FreePort(t)
}

// command returns a childproof command with the test's state dir (a static
// command runs the build without -race: childproofFor).
func (e *faultEnv) command(args ...string) *exec.Cmd {
	c := exec.Command(childproofFor(args), args...)
	c.Env = append(os.Environ(), "CHILDPROOF_STATE_DIR="+e.state, "GORACE=atexit_sleep_ms=0")
	c.Dir = e.dir
	return c
}

// run runs childproof to completion: stdout, stderr, exit code.
func (e *faultEnv) run(args ...string) (string, string, int) {
	e.t.Helper()
	c := e.command(args...)
	var out, errb bytes.Buffer
	c.Stdout, c.Stderr = &out, &errb
	err := c.Run()
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		e.t.Fatalf("childproof %v: %v", args, err)
	}
	return out.String(), errb.String(), code
}

// censusEntry is the part of `ps --format json` the faults look at.
type censusEntry struct {
	Name    string `json:"name"`
	Status  string `json:"status"`
	Error   string `json:"error"`
	Pending bool   `json:"pending"`
	Worker  struct {
		Pid int `json:"pid"`
	} `json:"worker"`
	Ports []struct {
		Holder string `json:"holder"`
	} `json:"ports"`
}

// ps returns the census by name; all adds --all.
func (e *faultEnv) ps(all bool) map[string]censusEntry {
	e.t.Helper()
	args := []string{"ps", "--format", "json"}
	if all {
		args = append(args, "--all")
	}
	out, stderr, code := e.run(args...)
	if code != 0 {
		e.t.Fatalf("ps exit %d: %s", code, stderr)
	}
	var v struct{ Launches []censusEntry }
	if err := json.Unmarshal([]byte(out), &v); err != nil {
		e.t.Fatalf("ps output %q: %v", out, err)
	}
	m := map[string]censusEntry{}
	for _, l := range v.Launches {
		m[l.Name] = l
	}
	return m
}

// worker waits for the pid file of a worker this test launched, opens a
// pidfd on it and makes sure the test ends with it gone.
func (e *faultEnv) worker(pidfile string) (int, int) {
	e.t.Helper()
	end := time.Now().Add(15 * time.Second)
	for time.Now().Before(end) {
		b, err := os.ReadFile(pidfile)
		if pid, _ := strconv.Atoi(string(b)); err == nil && pid > 0 {
			fd, err := unix.PidfdOpen(pid, 0)
			if err != nil {
				e.t.Fatalf("pidfd of the worker %d: %v", pid, err)
			}
			e.t.Cleanup(func() {
				if !exitedFD(fd) {
					e.t.Errorf("worker %d still alive at the end of the test: killed", pid)
					unix.PidfdSendSignal(fd, unix.SIGKILL, nil, 0)
				}
				unix.Close(fd)
			})
			return pid, fd
		}
		time.Sleep(2 * time.Millisecond)
	}
	e.t.Fatalf("no worker pid in %s", pidfile)
	return 0, -1
}

// exitedFD reports whether a pidfd's process has exited.
func exitedFD(fd int) bool {
	fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
	n, err := unix.Poll(fds, 0)
	return err == nil && n > 0
}

// waitExited waits up to d for a pidfd's process to exit.
func waitExited(fd int, d time.Duration) bool {
	fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
	for end := time.Now().Add(d); time.Now().Before(end); {
		if n, err := unix.Poll(fds, 50); err == nil && n > 0 {
			return true
		}
	}
	return false
}

func listening(t *testing.T, port int) bool {
	t.Helper()
	ls, err := sockdiag.Listeners(uint16(port))
	if err != nil {
		t.Fatal(err)
	}
	return len(ls) > 0
}

// background starts childproof and makes sure it is gone at the end.
func (e *faultEnv) background(args ...string) (*exec.Cmd, *bytes.Buffer) {
	e.t.Helper()
	c := e.command(args...)
	var out bytes.Buffer
	c.Stdout, c.Stderr = &out, &out
	if err := c.Start(); err != nil {
		e.t.Fatal(err)
	}
	e.t.Cleanup(func() {
		if c.ProcessState == nil {
			c.Process.Kill() // our own child, through its pidfd
			c.Wait()
		}
	})
	return c, &out
}

// TestFaultForegroundSupervisorKilled: SIGKILL of a foreground `run`, once
// mid-launch (the worker not listening yet) and once while supervising a
// verified worker. Both times the worker dies with it (no orphan, no
// listener), the lock is free again, and ps tells the truth: no record of
// the launch that never verified, "gone" for the supervised one.
func TestFaultForegroundSupervisorKilled(t *testing.T) {
	e := newFaultEnv(t)
	mid, supName := uniqueName("fault-mid"), uniqueName("fault-sup")

	// Mid-launch: the worker listens only once its gate is open, after
	// the kill.
	gate := filepath.Join(e.dir, mid+".gate")
	spec, port, pidfile := e.spec(mid, fmt.Sprintf("CHILDPROOF_FAULT_GATE = %q", gate))
	sup, out := e.background("run", spec+":"+mid)
	pid, fd := e.worker(pidfile)
	if s, err := proc.Default.Stat(pid); err != nil || s.PPid != sup.Process.Pid {
		t.Fatalf("pid %d is not the launched worker (%+v, %v)", pid, s, err)
	}
	sup.Process.Kill()
	sup.Wait()
	os.WriteFile(gate, nil, 0o600)
	if !waitExited(fd, 2*time.Second) {
		t.Fatalf("the worker %d outlived its supervisor's SIGKILL mid-launch (supervisor said %q)", pid, out)
	}
	if listening(t, port) {
		t.Error("a listener is left on the port")
	}
	// The interrupted launch's provisional record: its tree is gone.
	if l := e.ps(true)[mid]; l.Status != "gone" || !l.Pending {
		t.Errorf("ps after the kill mid-launch: %+v, want gone and never verified", l)
	}
	// The name is free again (the lock died with the supervisor), and a new
	// launch of it sweeps the dead supervisor's empty cgroup.
	os.Remove(pidfile)
	if _, stderr, code := e.run("run", "--detach", spec+":"+mid); code != 0 {
		t.Fatalf("relaunch after the kill: exit %d: %s", code, stderr)
	}
	e.worker(pidfile)
	if _, stderr, code := e.run("stop", mid); code != 0 {
		t.Fatalf("stop: %s", stderr)
	}
	if n := launchCgroups(mid); n != 0 {
		t.Errorf("%d cgroups of %s left", n, mid)
	}

	// Supervising: the worker is verified, ps says alive.
	spec, port, pidfile = e.spec(supName)
	sup, out = e.background("run", spec+":"+supName)
	pid, fd = e.worker(pidfile)
	for i := 0; i < 400 && e.ps(false)[supName].Status != "alive"; i++ {
		time.Sleep(10 * time.Millisecond)
	}
	if l := e.ps(false)[supName]; l.Status != "alive" || l.Pending || l.Worker.Pid != pid || len(l.Ports) != 1 || l.Ports[0].Holder != "worker" {
		t.Fatalf("ps while supervising: %+v (run said %q)", l, out)
	}
	sup.Process.Kill()
	sup.Wait()
	if !waitExited(fd, 2*time.Second) {
		t.Fatalf("the worker %d outlived its supervisor's SIGKILL", pid)
	}
	for i := 0; i < 100 && listening(t, port); i++ {
		time.Sleep(10 * time.Millisecond)
	}
	if listening(t, port) {
		t.Error("a listener is left on the port")
	}
	if l := e.ps(false)[supName]; l.Status != "gone" || len(l.Ports) != 1 || l.Ports[0].Holder != "none" {
		t.Errorf("ps after the kill: %+v, want gone with the port free", l)
	}
	os.Remove(pidfile)
	if _, stderr, code := e.run("run", "--detach", spec+":"+supName); code != 0 {
		t.Fatalf("relaunch after the kill: exit %d: %s", code, stderr)
	}
	e.worker(pidfile)
	e.run("stop", supName)
	if n := launchCgroups(supName); n != 0 {
		t.Errorf("%d cgroups of %s left", n, supName)
	}
}

// uniqueName makes a launch name no other test run on the machine uses
// (launch cgroups are named after it).
func uniqueName(prefix string) string {
	return fmt.Sprintf("%s-%d-%d", prefix, os.Getpid(), time.Now().UnixNano()%1e6)
}

// TestFaultDetachedRunKilled: SIGKILL of `run --detach`, once after it has
// verified (the worker lives on, as asked) and twice mid-launch: traced for
// exec capture, the tree dies with its tracer (PTRACE_O_EXITKILL) and ps
// says gone; untraced, the worker, in a session of its own, lives on. Each
// time ps reports the launch truthfully — alive, gone, or unverified when
// childproof died before verifying — and stop ends what runs.
func TestFaultDetachedRunKilled(t *testing.T) {
	e := newFaultEnv(t)

	// After the report: kill it as soon as it says verified.
	spec, port, pidfile := e.spec("after")
	c := e.command("run", "--detach", spec+":after")
	stdout, _ := c.StdoutPipe()
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	line := make([]byte, 256)
	n, _ := io.ReadAtLeast(stdout, line, len("verified"))
	c.Process.Kill()
	c.Wait()
	if !strings.HasPrefix(string(line[:n]), "verified after") {
		t.Fatalf("run --detach said %q", line[:n])
	}
	pid, fd := e.worker(pidfile)
	if l := e.ps(false)["after"]; l.Status != "alive" || l.Worker.Pid != pid || l.Ports[0].Holder != "worker" {
		t.Errorf("ps: %+v, want alive with the worker %d on the port", l, pid)
	}
	if _, stderr, code := e.run("stop", "after"); code != 0 || !waitExited(fd, 2*time.Second) {
		t.Fatalf("stop: exit %d %s", code, stderr)
	}
	if listening(t, port) {
		t.Error("a listener is left on the port")
	}

	// Mid-launch, with exec capture (the default): the tree is traced
	// with PTRACE_O_EXITKILL until the worker is verified, so it dies with
	// the killed childproof — nothing runs on, nothing stays in a ptrace
	// stop — and the journal record says what was being launched.
	gate := filepath.Join(e.dir, "traced.gate")
	spec, port, pidfile = e.spec("traced", fmt.Sprintf("CHILDPROOF_FAULT_GATE = %q", gate))
	c, _ = e.background("run", "--detach", spec+":traced")
	pid, fd = e.worker(pidfile)
	c.Process.Kill()
	c.Wait()
	os.WriteFile(gate, nil, 0o600)
	if !waitExited(fd, 3*time.Second) {
		t.Errorf("the traced tree %d outlived its killed tracer", pid)
		unix.PidfdSendSignal(fd, unix.SIGKILL, nil, 0)
	}
	if listening(t, port) {
		t.Error("a listener is left on the port of the traced tree whose tracer was killed")
	}
	if l, ok := e.ps(true)["traced"]; !ok || l.Status != "gone" || !l.Pending {
		t.Errorf("ps after a traced launch was killed: %+v (listed: %v), want gone and never verified", l, ok)
	}
	if _, stderr, code := e.run("stop", "traced"); code != 0 {
		t.Errorf("stop: exit %d %s", code, stderr)
	}

	// Mid-launch, untraced: the worker is started but not yet listening; the launch
	// root is a shell that execs it (the root's exe changes under the
	// provisional record).
	t.Setenv("CHILDPROOF_NO_EXEC_CAPTURE", "1")
	gate = filepath.Join(e.dir, "mid.gate")
	spec, port, pidfile = e.spec("mid", fmt.Sprintf("CHILDPROOF_FAULT_GATE = %q", gate))
	src, _ := os.ReadFile(spec)
	os.WriteFile(spec, bytes.Replace(src, []byte(`command = ["childproof"]`), []byte(`command = ["sh", "-c", "sleep 0.2; exec childproof"]`), 1), 0o644)
	c, out := e.background("run", "--detach", spec+":mid")
	pid, fd = e.worker(pidfile)
	c.Process.Kill()
	c.Wait()
	os.WriteFile(gate, nil, 0o600)
	for i := 0; i < 300 && !listening(t, port); i++ {
		time.Sleep(10 * time.Millisecond)
	}
	l, ok := e.ps(false)["mid"]
	if !ok || l.Status != "unverified" || !l.Pending || l.Worker.Pid != pid || l.Ports[0].Holder != "worker" {
		t.Errorf("ps after run --detach was killed mid-launch: %+v (listed: %v), want the running tree %d unverified, on its port (run said %q)", l, ok, pid, out)
	}
	if _, stderr, code := e.run("stop", "mid"); code != 0 {
		t.Errorf("stop: exit %d %s", code, stderr)
	}
	if !waitExited(fd, 3*time.Second) {
		t.Errorf("stop left the worker %d of the interrupted launch running", pid)
		unix.PidfdSendSignal(fd, unix.SIGKILL, nil, 0)
	}
}

// TestFaultCorruptRecord: a truncated and an empty record next to a good
// one. ps lists the good one and names the bad ones (status unknown, the
// parse error, on stderr too); stop of a bad one says it is unreadable;
// run of that name replaces it.
func TestFaultCorruptRecord(t *testing.T) {
	e := newFaultEnv(t)
	spec, _, pidfile := e.spec("good")
	if _, stderr, code := e.run("run", "--detach", spec+":good"); code != 0 {
		t.Fatal(stderr)
	}
	_, fd := e.worker(pidfile)
	defer e.run("stop", "good")
	rec, err := os.ReadFile(filepath.Join(e.state, "records", "good.json"))
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(e.state, "records", "torn.json"), rec[:len(rec)/2], 0o600)
	os.WriteFile(filepath.Join(e.state, "records", "empty.json"), nil, 0o600)

	out, stderr, code := e.run("ps")
	if code != 0 || !regexpMatch(`good +alive`, out) {
		t.Fatalf("ps: exit %d, stdout %q, stderr %q: the good record must still be listed", code, out, stderr)
	}
	for _, n := range []string{"torn", "empty"} {
		if !regexpMatch(n+` +unknown`, out) || !strings.Contains(stderr, fmt.Sprintf("record of %q is unreadable", n)) {
			t.Errorf("ps does not name the corrupt record %s: stdout %q stderr %q", n, out, stderr)
		}
	}
	if l := e.ps(false)["torn"]; l.Status != "unknown" || !strings.Contains(l.Error, "unexpected end of JSON input") {
		t.Errorf("ps --format json: %+v", l)
	}
	_, stderr, code = e.run("stop", "torn")
	if code != 2 || !strings.Contains(stderr, `record of "torn" is unreadable`) {
		t.Errorf("stop of a corrupt record: exit %d %q", code, stderr)
	}
	if exitedFD(fd) {
		t.Error("the good launch was disturbed")
	}
	// A new launch of that name replaces the corrupt record.
	spec, _, pidfile = e.spec("torn")
	if _, stderr, code := e.run("run", "--detach", spec+":torn"); code != 0 {
		t.Fatalf("run over a corrupt record: %s", stderr)
	}
	e.worker(pidfile)
	if l := e.ps(false)["torn"]; l.Status != "alive" {
		t.Errorf("after run: %+v", l)
	}
	e.run("stop", "torn")
}

// mountTmpfs mounts a tmpfs of size bytes at a new directory (root only)
// and unmounts it at the end.
func mountTmpfs(t *testing.T, size string) string {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("needs root to mount a tmpfs")
	}
	dir := filepath.Join(t.TempDir(), "mnt")
	os.Mkdir(dir, 0o700)
	if err := unix.Mount("tmpfs", dir, "tmpfs", 0, "size="+size+",mode=0700"); err != nil {
		t.Skipf("cannot mount a tmpfs: %v", err)
	}
	t.Cleanup(func() {
		if err := unix.Unmount(dir, 0); err != nil {
			unix.Unmount(dir, unix.MNT_DETACH)
		}
	})
	return dir
}

// TestFaultStateDirReadOnly: a state dir that became read-only (a
// read-only remount as root; without root, directories without write
// permission). run refuses with a clear error before starting anything;
// ps still lists the recorded launch; stop still stops it.
func TestFaultStateDirReadOnly(t *testing.T) {
	e := newFaultEnv(t)
	root := os.Geteuid() == 0
	spec, _, pidfile := e.spec("one")
	if _, stderr, code := e.run("run", "--detach", spec+":one"); code != 0 {
		t.Fatal(stderr)
	}
	_, fd := e.worker(pidfile)
	if root {
		// A read-only bind mount of the state dir over itself (the
		// detached worker keeps its log open for writing underneath).
		if err := unix.Mount(e.state, e.state, "", unix.MS_BIND, ""); err != nil {
			t.Skipf("bind mount: %v", err)
		}
		t.Cleanup(func() { unix.Unmount(e.state, unix.MNT_DETACH) })
		if err := unix.Mount("", e.state, "", unix.MS_REMOUNT|unix.MS_BIND|unix.MS_RDONLY, ""); err != nil {
			t.Fatalf("remount read-only: %v", err)
		}
	} else {
		for _, d := range []string{"records", "logs", "locks"} {
			os.Chmod(filepath.Join(e.state, d), 0o500)
			defer os.Chmod(filepath.Join(e.state, d), 0o700)
		}
	}
	spec2, port2, pidfile2 := e.spec("two")
	_, stderr, code := e.run("run", "--detach", spec2+":two")
	if code != 2 || !strings.Contains(stderr, "childproof: error:") || !regexpMatch(`read-only file system|permission denied`, stderr) {
		t.Errorf("run on a read-only state dir: exit %d, stderr %q", code, stderr)
	}
	if _, err := os.Stat(pidfile2); err == nil {
		t.Error("run started a worker although it could not record it")
	}
	if listening(t, port2) {
		t.Error("a listener is left on the refused launch's port")
	}
	out, stderr, code := e.run("ps")
	if code != 0 || !regexpMatch(`one +alive`, out) {
		t.Errorf("ps on a read-only state dir: exit %d %q %q", code, out, stderr)
	}
	// stop stops it, then says that the record could not be marked
	// stopped (exit 2), instead of a "stopped" the record contradicts.
	if out, stderr, code := e.run("stop", "one"); code != 2 || !waitExited(fd, 3*time.Second) || !strings.Contains(out, "stopped the worker") ||
		!strings.Contains(stderr, "could not be marked stopped") {
		t.Errorf("stop on a read-only state dir: exit %d %q %q", code, out, stderr)
	}
	// ps then never shows it as merely gone: it says why its end is not
	// recorded (the state dir cannot be written, so a stop could not
	// mark it).
	if out, stderr, code := e.run("ps"); code != 0 || !regexpMatch(`one +gone`, out) || !strings.Contains(out, "state dir not writable now") {
		t.Errorf("ps after a stop that could not mark the record: exit %d %q %q", code, out, stderr)
	}
}

// TestFaultStateDirFull: a state dir on a full 64 KiB tmpfs. A launch that
// cannot write its record fails with a clear error and stops its tree (no
// process, no listener, no partial record); the earlier record is intact.
func TestFaultStateDirFull(t *testing.T) {
	e := newFaultEnv(t)
	mnt := mountTmpfs(t, "64k")
	e.state = filepath.Join(mnt, "state")
	spec, _, pidfile := e.spec("one")
	if _, stderr, code := e.run("run", "--detach", spec+":one"); code != 0 {
		t.Fatal(stderr)
	}
	_, fd := e.worker(pidfile)
	defer e.run("stop", "one")
	fill, err := os.Create(filepath.Join(mnt, "fill"))
	if err != nil {
		t.Fatal(err)
	}
	for _, chunk := range [][]byte{make([]byte, 4096), make([]byte, 1)} {
		for {
			if _, err := fill.Write(chunk); err != nil {
				break
			}
		}
	}
	fill.Close()

	spec2, port2, pidfile2 := e.spec("two")
	_, stderr, code := e.run("run", "--detach", spec2+":two")
	if code == 0 || !strings.Contains(stderr, "childproof: error:") || !strings.Contains(stderr, "no space left on device") {
		t.Errorf("run on a full state dir: exit %d, stderr %q", code, stderr)
	}
	if b, err := os.ReadFile(pidfile2); err == nil {
		pid, _ := strconv.Atoi(string(b))
		if fd2, err := unix.PidfdOpen(pid, 0); err == nil {
			if !waitExited(fd2, 2*time.Second) {
				t.Errorf("the refused launch's worker %d is still running", pid)
				unix.PidfdSendSignal(fd2, unix.SIGKILL, nil, 0)
			}
			unix.Close(fd2)
		}
	}
	if listening(t, port2) {
		t.Error("a listener is left on the refused launch's port")
	}
	ents, _ := os.ReadDir(filepath.Join(e.state, "records"))
	for _, en := range ents {
		if en.Name() != "one.json" {
			t.Errorf("records/ holds %s", en.Name())
		}
	}
	if l := e.ps(false)["one"]; l.Status != "alive" {
		t.Errorf("ps on a full state dir: %+v", l)
	}
	os.Remove(filepath.Join(mnt, "fill"))
	if _, stderr, code := e.run("stop", "one"); code != 0 || !waitExited(fd, 3*time.Second) {
		t.Errorf("stop: exit %d %q", code, stderr)
	}
}

// TestFaultTwoShells: the same spec launched from two shells at once, on a
// state dir neither has created yet. One launches and verifies; the other
// is exit 6 (the launch lock), starts nothing, and both agree on the
// digest key. The winner's worker takes 2 s to listen, so the loser meets
// the lock; on a machine so loaded that the loser's process only starts
// after the winner is verified, it meets the winner's live launch instead
// — exit 6 all the same ("already running", naming the spec file and
// pid), never exit 4 (that is for processes childproof did not start).
func TestFaultTwoShells(t *testing.T) {
	e := newFaultEnv(t)
	spec, port, pidfile := e.spec("twin", `CHILDPROOF_FAULT_DELAY = "2s"`)
	type result struct {
		stdout, stderr string
		code           int
	}
	var wg sync.WaitGroup
	res := make([]result, 2)
	start := make(chan struct{})
	for i := range res {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			o, s, c := e.run("run", "--detach", spec+":twin")
			res[i] = result{o, s, c}
		}()
	}
	close(start)
	wg.Wait()
	codes := []int{res[0].code, res[1].code}
	slices.Sort(codes)
	if codes[0] != 0 || codes[1] != 6 {
		t.Fatalf("exit codes %v, want one 0 and one 6: %+v", codes, res)
	}
	loser := res[0]
	if res[0].code == 0 {
		loser = res[1]
	}
	switch {
	case loser.code == 6 && strings.Contains(loser.stderr, `another childproof launch of "twin" holds the lock`):
	case loser.code == 6 && strings.Contains(loser.stderr, `launch "twin" is already running, recorded from `+spec+` (pid `):
		t.Logf("the second launch started after the first was verified (a loaded machine): it met the live launch, not the lock")
	default:
		t.Errorf("the loser (exit %d) said %q", loser.code, loser.stderr)
	}
	pid, fd := e.worker(pidfile)
	if l := e.ps(false)["twin"]; l.Status != "alive" || l.Worker.Pid != pid {
		t.Errorf("ps: %+v", l)
	}
	if k, err := os.ReadFile(filepath.Join(e.state, "key")); err != nil || len(k) != 64 {
		t.Errorf("key: %d bytes, %v", len(k), err)
	}
	e.run("stop", "twin")
	if !waitExited(fd, 3*time.Second) || listening(t, port) {
		t.Error("the winner's worker outlived stop")
	}
}

// launchCgroups counts the launch cgroups of name (childproof-NAME-HEX)
// below ours on the cgroup v2 mount.
func launchCgroups(name string) int {
	mi, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		return 0
	}
	b, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return 0
	}
	rest := ""
	for _, l := range strings.Split(string(b), "\n") {
		if r, ok := strings.CutPrefix(l, "0::"); ok {
			rest = r
		}
	}
	for _, l := range strings.Split(string(mi), "\n") {
		pre, post, ok := strings.Cut(l, " - ")
		if f := strings.Fields(pre); ok && strings.HasPrefix(post, "cgroup2 ") && len(f) >= 5 {
			m, _ := filepath.Glob(filepath.Join(f[4], rest, "childproof-"+name+"-*"))
			return len(m)
		}
	}
	return 0
}

func regexpMatch(re, s string) bool { return regexp.MustCompile("(?m)" + re).MatchString(s) }
