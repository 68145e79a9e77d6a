package main

// Faults of the state dir's file system (issue 40): read-only, full and
// foreign-owned state dirs refused before anything is stopped or
// started, within the test's own deadline.

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	mrand "math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/childproof/childproof/launcher/statedir"
	"golang.org/x/sys/unix"
)

// faultDeadline bounds each childproof a file system fault test runs: a
// hang is a failure at this deadline, not a test that never ends.
const faultDeadline = 60 * time.Second

// runBounded runs childproof as run does, killed at faultDeadline; a
// command that needed the deadline fails the test.
func (e *faultEnv) runBounded(args ...string) (string, string, int) {
	e.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), faultDeadline)
	defer cancel()
	c := e.command(args...)
	cc := exec.CommandContext(ctx, c.Path, args...)
	cc.Env, cc.Dir = c.Env, c.Dir
	var out, errb bytes.Buffer
	cc.Stdout, cc.Stderr = &out, &errb
	start := time.Now()
	err := cc.Run()
	if ctx.Err() != nil {
		e.t.Fatalf("childproof %v did not end within %s (killed): %s", args, faultDeadline, errb.String())
	}
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		e.t.Fatalf("childproof %v: %v", args, err)
	}
	e.t.Logf("childproof %v: exit %d in %s", args, code, time.Since(start).Round(time.Millisecond))
	return out.String(), errb.String(), code
}

// bindReadOnly makes dir read-only by a read-only bind mount of it over
// itself (root only; the test skips otherwise), undone at the end of the
// test (undo does it earlier).
func bindReadOnly(t *testing.T, dir string) (undo func()) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("needs root to bind-mount a directory read-only")
	}
	if err := unix.Mount(dir, dir, "", unix.MS_BIND, ""); err != nil {
		t.Skipf("bind mount of %s: %v", dir, err)
	}
	mounted := true
	undo = func() {
		if !mounted {
			return
		}
		mounted = false
		if err := unix.Unmount(dir, 0); err != nil {
			unix.Unmount(dir, unix.MNT_DETACH)
		}
	}
	t.Cleanup(undo)
	if err := unix.Mount("", dir, "", unix.MS_REMOUNT|unix.MS_BIND|unix.MS_RDONLY, ""); err != nil {
		t.Skipf("read-only remount of %s: %v", dir, err)
	}
	return undo
}

// TestFaultStateDirReadOnlyRerun: run --detach, stop, the state dir made
// read-only, run --detach again. The earlier log's rotation used to loop
// for ever at 100% CPU (unlinkat of NAME.log.N with N rising, EROFS each
// time); now run is exit 2 at once, naming the directory, and starts
// nothing.
func TestFaultStateDirReadOnlyRerun(t *testing.T) {
	e := newFaultEnv(t)
	name := uniqueName("rorerun")
	spec, port, pidfile := e.spec(name)
	if _, stderr, code := e.runBounded("run", "--detach", spec+":"+name); code != 0 {
		t.Fatal(stderr)
	}
	_, fd := e.worker(pidfile)
	if _, stderr, code := e.runBounded("stop", name); code != 0 || !waitExited(fd, 5*time.Second) {
		t.Fatalf("stop: exit %d %s", code, stderr)
	}
	os.Remove(pidfile)
	bindReadOnly(t, e.state)
	_, stderr, code := e.runBounded("run", "--detach", spec+":"+name)
	if code != 2 || !strings.Contains(stderr, "childproof: error: state dir: "+e.state) || !strings.Contains(stderr, "read-only file system") {
		t.Errorf("run on a read-only state dir with an earlier log: exit %d, stderr %q", code, stderr)
	}
	if _, err := os.Stat(pidfile); err == nil {
		t.Error("run started a worker although it could not record it")
	}
	if listening(t, port) {
		t.Error("a listener is left on the refused launch's port")
	}
	if code := launchCgroups(name); code != 0 {
		t.Errorf("%d cgroups of the refused launch are left", code)
	}
}

// TestFaultRelaunchLogsReadOnly: relaunch of a running launch whose logs/
// cannot be written is refused before the running launch is stopped
// (issue 40 item 10: it used to stop it first and leave the service
// down); the old worker still runs, ps says so, and its history has no
// round left "running".
func TestFaultRelaunchLogsReadOnly(t *testing.T) {
	e := newFaultEnv(t)
	name := uniqueName("rologs")
	spec, port, pidfile := e.spec(name, `R = "0"`)
	if _, stderr, code := e.runBounded("run", "--detach", spec+":"+name); code != 0 {
		t.Fatal(stderr)
	}
	pid, fd := e.worker(pidfile)
	defer e.runBounded("stop", name)
	undo := bindReadOnly(t, filepath.Join(e.state, "logs"))
	_, stderr, code := e.runBounded("relaunch", "--detach", "--set", "R=1", name)
	if code != 2 || !strings.Contains(stderr, filepath.Join(e.state, "logs")) || !strings.Contains(stderr, "nothing was stopped") {
		t.Errorf("relaunch with a read-only logs/: exit %d, stderr %q", code, stderr)
	}
	if exitedFD(fd) || !listening(t, port) {
		t.Fatalf("the running worker %d was stopped by a relaunch that could not write", pid)
	}
	if l := e.ps(false)[name]; l.Status != "alive" || l.Worker.Pid != pid {
		t.Errorf("ps after the refused relaunch: %+v", l)
	}
	undo()
	out, _, _ := e.runBounded("history", name)
	if strings.Contains(out, "running") && strings.Count(out, "running") > 1 {
		t.Errorf("history after the refused relaunch shows a second running round:\n%s", out)
	}
}

// TestChaosStateDirFaults is TestChaosOwnership (as root, with a cgroup)
// while the state dir fails under the commands: read-only (a read-only
// bind mount over it, on and off), full (it lives on a 4 MiB tmpfs that a
// file fills, then frees) and foreign (a launch's log, mask or history
// directory, or the layout, chowned to nobody and back). No command may
// hang (each is killed at 30 s, which fails the test) and afterwards,
// the state dir as it was, the ownership invariant holds: every marked
// process is a member of a record ps shows alive, and stop of every
// record leaves nothing.
func TestChaosStateDirFaults(t *testing.T) {
	t.Parallel() // alongside the scripts: its processes, dirs, mounts and marker prefix are its own
	if testing.Short() {
		t.Skip("chaos: -short")
	}
	if os.Geteuid() != 0 {
		t.Skip("the state dir faults need root (mounts, chown)")
	}
	dur := 12 * time.Second
	if d, err := time.ParseDuration(os.Getenv("CHILDPROOF_CHAOS_TIME")); err == nil {
		dur = d
	}
	for _, mode := range []string{"readonly", "full", "foreign"} {
		t.Run(mode, func(t *testing.T) { chaos(t, mode, dur) })
	}
}

// chaosFault is a state dir fault of the chaos test: prepare (before any
// command) and inject, which applies and undoes the fault at random
// moments until stop is closed, then leaves the state dir as it was and
// returns how many times it applied it. inject runs on its own goroutine:
// it never calls t.Fatal or t.Skip.
type chaosFault struct {
	prepare func(t *testing.T, e *faultEnv)
	inject  func(e *faultEnv, names []string, stop <-chan struct{}) int
}

var chaosFaults = map[string]chaosFault{
	"readonly": {
		prepare: func(t *testing.T, e *faultEnv) {
			t.Cleanup(func() { unix.Unmount(e.state, unix.MNT_DETACH) })
		},
		inject: func(e *faultEnv, _ []string, stop <-chan struct{}) int {
			n := 0
			for chaosPause(stop) {
				if unix.Mount(e.state, e.state, "", unix.MS_BIND, "") != nil {
					continue // not made yet
				}
				if unix.Mount("", e.state, "", unix.MS_REMOUNT|unix.MS_BIND|unix.MS_RDONLY, "") == nil {
					n++
				}
				chaosPause(stop)
				if unix.Unmount(e.state, 0) != nil {
					unix.Unmount(e.state, unix.MNT_DETACH)
				}
			}
			return n
		},
	},
	"full": {
		prepare: func(t *testing.T, e *faultEnv) {
			e.state = filepath.Join(mountTmpfs(t, "4m"), "state")
		},
		inject: func(e *faultEnv, _ []string, stop <-chan struct{}) int {
			n := 0
			fill := filepath.Join(filepath.Dir(e.state), "fill")
			for chaosPause(stop) {
				if f, err := os.Create(fill); err == nil {
					for _, chunk := range [][]byte{make([]byte, 64<<10), make([]byte, 1)} {
						for {
							if _, err := f.Write(chunk); err != nil {
								break
							}
						}
					}
					f.Close()
					n++
				}
				chaosPause(stop)
				os.Remove(fill)
			}
			return n
		},
	},
	"foreign": {
		inject: func(e *faultEnv, names []string, stop <-chan struct{}) int {
			n := 0
			for i := 0; chaosPause(stop); i++ {
				name := statedir.Encode(names[i%len(names)])
				paths := []string{
					filepath.Join(e.state, "logs", name+".log"),
					filepath.Join(e.state, "logs", name+".mask"),
					filepath.Join(e.state, "history", name),
					filepath.Join(e.state, statedir.LayoutFile),
				}
				p := paths[i%len(paths)]
				if os.Lchown(p, 65534, 65534) == nil {
					n++
				}
				chaosPause(stop)
				os.Lchown(p, 0, 0)
			}
			return n
		},
	},
}

// chaosPause waits 50–450 ms, or until stop is closed (then false).
func chaosPause(stop <-chan struct{}) bool {
	select {
	case <-stop:
		return false
	case <-time.After(time.Duration(50+mrand.IntN(400)) * time.Millisecond):
		return true
	}
}

// TestFaultRelaunchEnvFileReadOnly: relaunch --in-env-file whose env file
// cannot be written (its directory a read-only bind mount) is refused
// before the running launch is stopped: exit 2, the file unchanged, the
// old worker still serving.
func TestFaultRelaunchEnvFileReadOnly(t *testing.T) {
	e := newFaultEnv(t)
	name := uniqueName("roenv")
	port := freeTCPPort(t)
	pidfile := filepath.Join(e.dir, name+".pid")
	envDir := filepath.Join(e.dir, "envdir")
	os.Mkdir(envDir, 0o755)
	files := map[string]string{
		"envdir/.env": "MODE=1\n",
		// The dispatcher re-sources the env file: --in-env-file is the way.
		"dispatch.sh": "set -a\n. ./envdir/.env\nset +a\nexec childproof\n",
		name + ".hcl": fmt.Sprintf(`launch %q {
  dispatch = ["dispatch.sh"]
  env_file = "envdir/.env"
  env = {
    CHILDPROOF_TEST_SERVE    = "127.0.0.1:%d"
    CHILDPROOF_FAULT_PIDFILE = %q
    GORACE                   = "atexit_sleep_ms=0"
  }
  port "http" {
    number = %d
  }
  ready {
    timeout = "20s"
  }
}
`, name, port, pidfile, port),
	}
	for f, src := range files {
		if err := os.WriteFile(filepath.Join(e.dir, f), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if _, stderr, code := e.runBounded("run", "--detach", "--no-lint", name+".hcl:"+name); code != 0 {
		t.Fatal(stderr)
	}
	pid, fd := e.worker(pidfile)
	defer e.runBounded("stop", name)
	bindReadOnly(t, envDir)
	_, stderr, code := e.runBounded("relaunch", "--detach", "--set", "MODE=2", "--in-env-file", name)
	t.Logf("relaunch said: %s", stderr)
	if code != 2 || !strings.Contains(stderr, ".env") || !strings.Contains(stderr, "read-only file system") {
		t.Errorf("relaunch --in-env-file with a read-only env file: exit %d, stderr %q", code, stderr)
	}
	if b, _ := os.ReadFile(filepath.Join(envDir, ".env")); string(b) != "MODE=1\n" {
		t.Errorf("the env file changed: %q", b)
	}
	if exitedFD(fd) || !listening(t, port) {
		t.Fatalf("the running worker %d was stopped by a relaunch that could not write its env file", pid)
	}
	if l := e.ps(false)[name]; l.Status != "alive" || l.Worker.Pid != pid {
		t.Errorf("ps after the refused relaunch: %+v", l)
	}
}
