package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// syncBuffer is a bytes.Buffer safe for a child's output and the test.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// waitFor waits until the output contains want.
func waitFor(t *testing.T, out *syncBuffer, want string, d time.Duration) {
	t.Helper()
	for end := time.Now().Add(d); time.Now().Before(end); time.Sleep(10 * time.Millisecond) {
		if strings.Contains(out.String(), want) {
			return
		}
	}
	t.Fatalf("no %q in the output within %s:\n%s", want, d, out.String())
}

// serverLaunch is a launch block of the test server on port, writing its
// pid to pidfile; extra goes into the block.
func serverLaunch(name string, port int, pidfile, extra string) string {
	return fmt.Sprintf(`launch %q {
  command = ["childproof"]
  env = {
    CHILDPROOF_TEST_SERVE    = "127.0.0.1:%d"
    CHILDPROOF_FAULT_PIDFILE = %q
    GORACE                   = "atexit_sleep_ms=0"
  }
  port "http" {
    number = %d
  }
  ready {
    http    = "/healthz"
    timeout = "20s"
  }
%s}
`, name, port, pidfile, port, extra)
}

// supervisor starts a foreground childproof (up, run) whose output the
// test reads as it comes, and makes sure it is gone at the end.
func (e *faultEnv) supervisor(args ...string) (*exec.Cmd, *syncBuffer) {
	e.t.Helper()
	c := e.command(args...)
	out := &syncBuffer{}
	c.Stdout, c.Stderr = out, out
	if err := c.Start(); err != nil {
		e.t.Fatal(err)
	}
	e.t.Cleanup(func() {
		if c.ProcessState == nil {
			c.Process.Kill() // our own child
			c.Wait()
		}
	})
	return c, out
}

// nextPid waits for the pid file to name a process other than prev and
// returns a pidfd on it.
func nextPid(t *testing.T, pidfile string, prev int) (int, int) {
	t.Helper()
	for end := time.Now().Add(20 * time.Second); time.Now().Before(end); time.Sleep(5 * time.Millisecond) {
		b, err := os.ReadFile(pidfile)
		pid, _ := strconv.Atoi(string(b))
		if err != nil || pid <= 0 || pid == prev {
			continue
		}
		fd, err := unix.PidfdOpen(pid, 0)
		if err != nil {
			continue // gone already: a failed attempt
		}
		t.Cleanup(func() {
			if !exitedFD(fd) {
				unix.PidfdSendSignal(fd, unix.SIGKILL, nil, 0)
			}
			unix.Close(fd)
		})
		return pid, fd
	}
	t.Fatalf("no new worker pid in %s", pidfile)
	return 0, -1
}

// TestUpDown: a two-launch file with depends_on starts in order with up
// --detach, each verified before its dependent; down stops both, the
// dependent first.
func TestUpDown(t *testing.T) {
	e := newFaultEnv(t)
	dbPort, apiPort := freeTCPPort(t), freeTCPPort(t)
	dbPid, apiPid := filepath.Join(e.dir, "db.pid"), filepath.Join(e.dir, "api.pid")
	spec := filepath.Join(e.dir, "stack.hcl")
	src := serverLaunch("api", apiPort, apiPid, "  depends_on = [\"db\"]\n") + serverLaunch("db", dbPort, dbPid, "")
	if err := os.WriteFile(spec, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	out, errb, code := e.run("up", "--detach", spec)
	if code != 0 {
		t.Fatalf("up: exit %d\n%s\n%s", code, out, errb)
	}
	_, dbFD := nextPid(t, dbPid, 0)
	_, apiFD := nextPid(t, apiPid, 0)
	iDB, iAPI := strings.Index(errb, "starting db"), strings.Index(errb, "starting api (after db)")
	if iDB < 0 || iAPI < iDB {
		t.Fatalf("not started in depends_on order:\n%s", errb)
	}
	if strings.Count(out, "verified") < 2 {
		t.Fatalf("not both verified:\n%s", out)
	}
	ps := e.ps(false)
	if ps["db"].Status != "alive" || ps["api"].Status != "alive" {
		t.Fatalf("ps: %+v", ps)
	}
	out, errb, code = e.run("down", spec)
	if code != 0 {
		t.Fatalf("down: exit %d\n%s\n%s", code, out, errb)
	}
	if i, j := strings.Index(out, "api: "), strings.Index(out, "db: "); i < 0 || j < i {
		t.Fatalf("down did not stop api before db:\n%s", out)
	}
	if !waitExited(dbFD, 5*time.Second) || !waitExited(apiFD, 5*time.Second) {
		t.Fatal("a worker outlived down")
	}
	if listening(t, dbPort) || listening(t, apiPort) {
		t.Fatal("a port is still listened on after down")
	}
	// down again: nothing runs, nothing is signalled
	out, _, code = e.run("down", spec)
	if code != 0 || !strings.Contains(out, "db: ") {
		t.Fatalf("second down: exit %d\n%s", code, out)
	}
}

// TestUpForeground: a foreground up multiplexes its launches' output with a
// name prefix and, on SIGINT, stops both in reverse order and exits 0.
func TestUpForeground(t *testing.T) {
	e := newFaultEnv(t)
	dbPort, apiPort := freeTCPPort(t), freeTCPPort(t)
	dbPid, apiPid := filepath.Join(e.dir, "db.pid"), filepath.Join(e.dir, "api.pid")
	spec := filepath.Join(e.dir, "stack.hcl")
	src := serverLaunch("db", dbPort, dbPid, "") + serverLaunch("api", apiPort, apiPid, "  depends_on = [\"db\"]\n")
	os.WriteFile(spec, []byte(src), 0o644)
	c, out := e.supervisor("up", spec)
	_, dbFD := nextPid(t, dbPid, 0)
	_, apiFD := nextPid(t, apiPid, 0)
	waitFor(t, out, " | listening on 127.0.0.1:"+strconv.Itoa(dbPort), 20*time.Second)
	waitFor(t, out, "api | listening on 127.0.0.1:"+strconv.Itoa(apiPort), 20*time.Second)
	if !regexp.MustCompile(`(?m)^db +\| listening on 127\.0\.0\.1:` + strconv.Itoa(dbPort)).MatchString(out.String()) {
		t.Fatalf("db's output is not prefixed with its name:\n%s", out.String())
	}
	// A worker's line is on the console as soon as it prints it, which
	// may be before its launch is verified: SIGINT only once both are.
	waitFor(t, out, "verified api:", 20*time.Second)
	c.Process.Signal(syscall.SIGINT) // the up this test started
	if err := c.Wait(); err != nil {
		t.Fatalf("up after SIGINT: %v\n%s", err, out.String())
	}
	if !exitedFD(dbFD) || !exitedFD(apiFD) {
		t.Fatalf("a worker outlived up:\n%s", out.String())
	}
	if !strings.Contains(out.String(), "stopping everything this up started") {
		t.Fatalf("output:\n%s", out.String())
	}
}

// TestRestart: a worker killed twice is restarted twice, each restart
// verified on its new worker and recorded; killed a third time, up (and
// run) give up at max = 2 and exit with the worker's status.
func TestRestart(t *testing.T) {
	for _, cmd := range []string{"up", "run"} {
		t.Run(cmd, func(t *testing.T) { testRestart(t, cmd) })
	}
}

func testRestart(t *testing.T, cmd string) {
	e := newFaultEnv(t)
	port := freeTCPPort(t)
	pidfile := filepath.Join(e.dir, "srv.pid")
	spec := filepath.Join(e.dir, "srv.hcl")
	os.WriteFile(spec, []byte(serverLaunch("srv", port, pidfile, `  restart {
    policy  = "on-failure"
    max     = 2
    backoff = "50ms"
  }
`)), 0o644)
	c, out := e.supervisor(cmd, spec)
	pid := 0
	for i := 1; i <= 3; i++ {
		var fd int
		pid, fd = nextPid(t, pidfile, pid)
		if i == 1 {
			waitFor(t, out, "verified srv", 20*time.Second)
		} else {
			waitFor(t, out, fmt.Sprintf("restart %d of srv verified (worker pid %d)", i-1, pid), 20*time.Second)
		}
		// The worker, started by this test's up, killed through its pidfd.
		if err := unix.PidfdSendSignal(fd, unix.SIGKILL, nil, 0); err != nil {
			t.Fatal(err)
		}
	}
	err := c.Wait()
	if c.ProcessState.ExitCode() != 137 {
		t.Fatalf("up: %v, want exit 137\n%s", err, out.String())
	}
	if !strings.Contains(out.String(), "after 2 restarts: giving up (max 2)") {
		t.Fatalf("output:\n%s", out.String())
	}
	stdout, _, _ := e.run("ps", "--all", "--format", "json")
	var ps struct {
		Launches []struct {
			Name     string `json:"name"`
			Restarts int    `json:"restarts"`
			LastExit *int   `json:"last_exit"`
		} `json:"launches"`
	}
	if err := json.Unmarshal([]byte(stdout), &ps); err != nil || len(ps.Launches) != 1 {
		t.Fatalf("ps: %v\n%s", err, stdout)
	}
	if l := ps.Launches[0]; l.Restarts != 2 || l.LastExit == nil || *l.LastExit != 137 {
		t.Fatalf("ps: restarts %d, last exit %v; want 2 and 137\n%s", l.Restarts, l.LastExit, stdout)
	}
}

// TestRestartRefused: a restart is a full launch. Once the worker is
// killed, this test takes the port itself; the restart's preflight finds a
// process childproof did not start on it and fails (exit 4) instead of
// counting as a restart, and the test's listener is left alone.
func TestRestartRefused(t *testing.T) {
	e := newFaultEnv(t)
	port := freeTCPPort(t)
	pidfile := filepath.Join(e.dir, "srv.pid")
	spec := filepath.Join(e.dir, "srv.hcl")
	os.WriteFile(spec, []byte(serverLaunch("srv", port, pidfile, `  restart {
    policy  = "always"
    backoff = "300ms"
  }
`)), 0o644)
	c, out := e.supervisor("run", spec)
	_, fd := nextPid(t, pidfile, 0)
	waitFor(t, out, "verified srv", 20*time.Second)
	unix.PidfdSendSignal(fd, unix.SIGKILL, nil, 0)
	if !waitExited(fd, 5*time.Second) {
		t.Fatal("the worker did not exit")
	}
	var ln net.Listener
	for end := time.Now().Add(2 * time.Second); ln == nil && time.Now().Before(end); time.Sleep(5 * time.Millisecond) {
		ln, _ = net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", port))
	}
	if ln == nil {
		t.Fatal("could not take the port after the worker died")
	}
	defer ln.Close()
	c.Wait()
	if code := c.ProcessState.ExitCode(); code != 4 {
		t.Fatalf("run: exit %d, want 4\n%s", code, out.String())
	}
	if !strings.Contains(out.String(), "restart 1 of srv failed") || strings.Contains(out.String(), "restart 1 of srv verified") {
		t.Fatalf("output:\n%s", out.String())
	}
}
