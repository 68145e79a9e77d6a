package enginetest

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// subreaper makes this test process the child subreaper once, so that what
// a daemon double-forks (slurmstepd, a job's processes) is re-parented to
// it and can be found and ended by pid (descendants) at teardown.
var subreaper = sync.OnceValue(func() error {
	return unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
})

// daemon is a process a test started in the foreground.
type daemon struct {
	name string
	cmd  *exec.Cmd
	out  *bytes.Buffer
	done chan struct{}
	mu   sync.Mutex
	// grace is how long stop waits after SIGTERM (5 s when zero).
	grace time.Duration
}

// startDaemon starts argv (with env added to this process's environment,
// output kept for failure messages) and stops it by pid at the end of the
// test: SIGTERM, then SIGKILL after 5 s. It dies with the test process
// (SIGKILL on parent death), so a killed test run leaves nothing running.
func startDaemon(t *testing.T, name string, cred *syscall.Credential, env []string, argv ...string) *daemon {
	t.Helper()
	d := &daemon{name: name, out: &bytes.Buffer{}, done: make(chan struct{})}
	d.cmd = exec.Command(argv[0], argv[1:]...)
	d.cmd.Env = append(os.Environ(), env...)
	w := &lockedWriter{mu: &d.mu, b: d.out}
	d.cmd.Stdout, d.cmd.Stderr = w, w
	d.cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL, Setpgid: true, Credential: cred}
	if err := d.cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", name, err)
	}
	go func() { _ = d.cmd.Wait(); close(d.done) }()
	t.Cleanup(func() { d.stop(t) })
	return d
}

// exited reports whether the daemon has exited.
func (d *daemon) exited() bool {
	select {
	case <-d.done:
		return true
	default:
		return false
	}
}

// output returns what the daemon printed so far.
func (d *daemon) output() string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.out.String()
}

// stop ends the daemon by its pid (its own process group first).
func (d *daemon) stop(t *testing.T) {
	if d.exited() {
		return
	}
	pid := d.cmd.Process.Pid
	_ = syscall.Kill(pid, syscall.SIGTERM)
	select {
	case <-d.done:
	case <-time.After(max(d.grace, 5*time.Second)):
		_ = syscall.Kill(-pid, syscall.SIGKILL)
		_ = syscall.Kill(pid, syscall.SIGKILL)
		<-d.done
	}
}

type lockedWriter struct {
	mu *sync.Mutex
	b  *bytes.Buffer
}

func (w *lockedWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.Write(p)
}

// descendants lists the pids below this test process (children per
// thread, recursively), excluding the pids in skip.
func descendants(skip map[int]bool) []int {
	var out []int
	seen := map[int]bool{}
	var walk func(pid int)
	walk = func(pid int) {
		tasks, _ := filepath.Glob("/proc/" + strconv.Itoa(pid) + "/task/*/children")
		for _, f := range tasks {
			b, _ := os.ReadFile(f)
			for _, s := range strings.Fields(string(b)) {
				c, err := strconv.Atoi(s)
				if err != nil || seen[c] {
					continue
				}
				seen[c] = true
				if !skip[c] {
					out = append(out, c)
				}
				walk(c)
			}
		}
	}
	walk(os.Getpid())
	return out
}

// reapOrphans SIGKILLs every descendant of this process that is not one
// of the tracked daemons (what a daemon left, re-parented here), then
// reaps those that are its children.
func reapOrphans(tracked ...*daemon) []int {
	skip := map[int]bool{}
	for _, d := range tracked {
		if d != nil && d.cmd.Process != nil {
			skip[d.cmd.Process.Pid] = true
		}
	}
	left := descendants(skip)
	for _, pid := range left {
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
	for _, pid := range left {
		// Only our own children can be reaped (they are dying: SIGKILL);
		// the others are re-parented here as their parents die and are
		// reaped by the next call.
		if ppid(pid) == os.Getpid() {
			var ws unix.WaitStatus
			_, _ = unix.Wait4(pid, &ws, 0, nil)
		}
	}
	return left
}

// ppid returns pid's parent, 0 when it cannot be read.
func ppid(pid int) int {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 2 {
		return 0
	}
	n, _ := strconv.Atoi(f[1])
	return n
}

// describe says "pid comm state" for each pid, for a log line.
func describe(pids []int) string {
	var out []string
	for _, pid := range pids {
		b, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
		s := string(b)
		i, j := strings.IndexByte(s, '('), strings.LastIndexByte(s, ')')
		if i < 0 || j < i || j+3 > len(s) {
			out = append(out, strconv.Itoa(pid)+" (gone)")
			continue
		}
		out = append(out, fmt.Sprintf("%d %s %c", pid, s[i+1:j], s[j+2]))
	}
	return strings.Join(out, ", ")
}

// live drops the zombies (and the gone) from pids.
func live(pids []int) []int {
	var out []int
	for _, pid := range pids {
		b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
		if j := bytes.LastIndexByte(b, ')'); err == nil && j > 0 && j+2 < len(b) && b[j+2] != 'Z' {
			out = append(out, pid)
		}
	}
	return out
}
