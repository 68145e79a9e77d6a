package launcher

import (
	"bufio"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/childproof/childproof/internal/pidfd"
	"github.com/childproof/childproof/outcome"
	"github.com/childproof/childproof/schema"
	"golang.org/x/sys/unix"
)

// TestStartBadProgram: a Go-built launch whose command[0] is missing or
// not executable is refused before anything starts, with a usage Error
// wrapping the *schema.InvalidError that names Command[0]; one that
// passes the check but fails at exec (ENOEXEC) is the exit-5 "never
// appeared" failure. Neither panics (a nil root in exitedError did).
func TestStartBadProgram(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string, mode os.FileMode) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), mode); err != nil {
			t.Fatal(err)
		}
		return p
	}
	notExec := write("notexec", "#!/bin/sh\n", 0o644)
	noFormat := write("noformat", "\x7fELF garbage", 0o755)
	for _, prog := range []string{filepath.Join(dir, "missing"), notExec, "no-such-program-childproof", "./rel-missing", dir} {
		st, err := OpenState(t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		_, err = Start(context.Background(), &schema.Launch{Name: "x", Command: []string{prog}, Dir: dir}, Options{State: st})
		var e *Error
		var ie *schema.InvalidError
		if !errors.As(err, &e) || e.Outcome != outcome.Usage || !errors.As(err, &ie) {
			t.Fatalf("%s: err = %v, want a usage *Error wrapping *schema.InvalidError", prog, err)
		}
		if len(ie.Problems) != 1 || ie.Problems[0].Field != "command[0]" || !strings.Contains(err.Error(), "Command[0]: ") {
			t.Errorf("%s: problems %+v (%v), want one naming Command[0]", prog, ie.Problems, err)
		}
	}
	st, err := OpenState(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	_, err = Start(context.Background(), &schema.Launch{Name: "x", Command: []string{noFormat}}, Options{State: st})
	var e *Error
	if !errors.As(err, &e) || e.Outcome != outcome.Exited || !strings.Contains(err.Error(), "never appeared") {
		t.Fatalf("exec format error: err = %v, want exit-5 'never appeared'", err)
	}
	_, err = Start(context.Background(), nil, Options{State: st})
	if !errors.As(err, &e) || e.Outcome != outcome.Usage {
		t.Fatalf("nil launch: err = %v, want usage", err)
	}
}

// FuzzStart starts generated launches: whatever the fields, Start
// returns (a Launch or an error) and never panics. Programs and scripts
// are kept inside a temporary directory: a fuzzed name never runs
// anything of the machine's.
func FuzzStart(f *testing.F) {
	f.Add("x", uint8(0), "arg", "", "", 0, 0, "", int64(0), "", "", "", false, "K", "v")
	f.Add("web", uint8(1), "", "comm", "", 2, 70000, "/healthz", int64(-1), "::", "root", "", true, "PATH", "")
	f.Add("", uint8(2), "x", "", "/nonexistent", 1, 1, "no-slash", int64(time.Hour), "0.0.0.0", "", "nogroup", false, "1BAD", "v")
	f.Add("a.b", uint8(3), "./..", "x/y", "exe", 3, 8080, "/", int64(1), "127.0.0.1", "", "", true, "", "")
	f.Add("ok", uint8(4), "../../bin/sh", "", "", 0, 0, "", int64(0), "", "", "", false, "X", "y")
	f.Fuzz(func(t *testing.T, name string, which uint8, arg, comm, exe string, count, port int, http string, timeout int64, addr, user, group string, all bool, k, v string) {
		dir := t.TempDir()
		os.WriteFile(filepath.Join(dir, "noexec"), []byte("#!/bin/sh\n"), 0o644)
		os.WriteFile(filepath.Join(dir, "quits"), []byte("#!/bin/sh\nexit 3\n"), 0o755)
		os.WriteFile(filepath.Join(dir, "noformat"), []byte("garbage"), 0o755)
		// inside keeps a fuzzed program name a path within dir.
		inside := func(s string) string { return "./" + strings.ReplaceAll(s, "..", "_") }
		l := &schema.Launch{Name: name, Dir: dir, Env: map[string]string{k: v, "PATH": dir},
			Worker: schema.Worker{Comm: comm, Count: count},
			Ports:  []schema.Port{{Number: port, Address: addr, AllowAllInterfaces: all}},
			Ready:  schema.Ready{HTTP: http, Timeout: time.Duration(timeout)},
			User:   user, Group: group}
		if exe != "" {
			l.Worker.Exe = filepath.Join(dir, exe)
		}
		progs := []string{"./quits", "./noexec", "./noformat", dir, "", inside(arg)}
		switch p := progs[int(which)%len(progs)]; {
		case which&0x80 != 0:
			l.Dispatch = []string{inside(arg)}
		case which&0x40 != 0:
			l.Command, l.Dispatch = []string{p}, []string{"./quits"}
		default:
			l.Command = []string{p, arg}
		}
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		opts := Options{StateDir: t.TempDir()}
		opts.NoCgroup, opts.NoExecCapture = true, true
		opts.LookupEnv = func(string) (string, bool) { return dir, true }
		began := time.Now()
		la, err := Start(ctx, l, opts)
		if la != nil {
			la.Stop(context.Background())
		}
		if d := time.Since(began); d > 8*time.Second {
			t.Fatalf("start and stop took %s (the start's context allowed 2 s): %v", d, err)
		}
		if err == nil && la == nil {
			t.Fatal("no launch and no error")
		}
	})
}

// TestImportNoSideEffects: a program that imports launcher without
// calling RelayMain, whose init counts its runs, makes a detached launch:
// its relay is childproof found on $PATH (here this test binary, which
// calls RelayMain, under that name), never the program itself, so its
// init ran once; a descriptor it holds without close-on-exec stays so
// and the worker holds nothing beyond 0, 1 and 2. With no childproof on
// $PATH the detached start is refused before anything starts.
func TestImportNoSideEffects(t *testing.T) {
	dir := t.TempDir()
	prog := filepath.Join(dir, "initcount")
	build := exec.Command("go", "build", "-o", prog, "./testdata/initcount")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	onPath := filepath.Join(dir, "bin")
	os.Mkdir(onPath, 0o755)
	if err := os.Symlink(self, filepath.Join(onPath, "childproof")); err != nil {
		t.Fatal(err)
	}
	inits := filepath.Join(dir, "inits")
	run := func(path string) (string, int) {
		os.Remove(inits)
		cmd := exec.Command(prog, t.TempDir())
		cmd.Env = append(os.Environ(), "PATH="+path)
		out, err := cmd.CombinedOutput()
		if err != nil && cmd.ProcessState == nil {
			t.Fatal(err)
		}
		b, _ := os.ReadFile(inits)
		return string(out), strings.Count(string(b), "\n")
	}
	out, n := run(onPath + ":/usr/bin:/bin")
	if n != 1 {
		t.Errorf("the program's init ran %d times, want 1\n%s", n, out)
	}
	for _, want := range []string{"caller fd cloexec false", "worker fds 0,1,2\n", "relay exe " + self} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	out, n = run(t.TempDir())
	if n != 1 || !strings.Contains(out, "outcome usage error") || !strings.Contains(out, "RelayMain") {
		t.Errorf("no relay program: init ran %d times, want 1 and a usage error naming RelayMain:\n%s", n, out)
	}
}

// TestStartContextDeadline: a start its context's deadline ends says so
// in Go words (not the CLI's Ctrl-C and exit 130), errors.Is sees
// context.DeadlineExceeded, and the server's last lines are the Tail
// field, shown after the cause, never glued to it; the Error names the
// launch and the pid.
func TestStartContextDeadline(t *testing.T) {
	st, err := OpenState(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	port := freePort(t)
	l := &schema.Launch{Name: "slow", Command: []string{"sh", "-c", "echo warming up; exec sleep 30"},
		Ports: []schema.Port{{Number: port}}, Ready: schema.Ready{Timeout: 30 * time.Second}}
	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	_, err = Start(ctx, l, Options{State: st})
	var e *Error
	if !errors.As(err, &e) || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want an *Error that is context.DeadlineExceeded", err)
	}
	msg := err.Error()
	for _, bad := range []string{"Ctrl-C", "SIGTERM", "exit 130", "warming up: context"} {
		if strings.Contains(msg, bad) {
			t.Errorf("error says %q: %s", bad, msg)
		}
	}
	if !strings.HasPrefix(msg, "the start's context ended before the worker was ready; what was started is stopped: context deadline exceeded; last lines it printed:\n  | warming up") {
		t.Errorf("error text: %q", msg)
	}
	if e.Name != "slow" || e.Pid <= 0 || len(e.Tail) == 0 || e.Tail[len(e.Tail)-1] != "warming up" {
		t.Errorf("fields: name %q pid %d tail %q", e.Name, e.Pid, e.Tail)
	}
}

// TestStarterKilledWrappedWorker: SIGKILL of a program that started a
// foreground launch whose worker runs below a wrapper (sh -c "server;
// …") takes the worker too, not only the root (the parent-death
// signal's): the launch's watchdog kills what carries its marker and
// what is in its cgroup, and removes the cgroup.
func TestStarterKilledWrappedWorker(t *testing.T) {
	f := newFixture(t)
	starter := exec.Command(filepath.Join(f.bin, "helper"), "helper", "wrapped", f.state.Dir, filepath.Join(f.bin, "mock-srv"), strconv.Itoa(f.port))
	out, _ := starter.StdoutPipe()
	if err := starter.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { starter.Process.Kill(); starter.Wait() }() // our own helper
	line, err := bufio.NewReader(out).ReadString('\n')
	fields := strings.Fields(line)
	if err != nil || len(fields) != 3 {
		t.Fatalf("starter said %q (%v)", line, err)
	}
	root, worker, cgroup := atoi(fields[0]), atoi(fields[1]), strings.TrimSuffix(fields[2], "/")
	if root == worker {
		t.Fatalf("the worker (%d) is the root: the wrapper exec'd it", worker)
	}
	wfd, err := unix.PidfdOpen(worker, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(wfd)
	starter.Process.Kill()
	starter.Wait()
	if !pidfd.Wait(context.Background(), wfd, 30*time.Second) {
		t.Fatalf("the worker (pid %d, below the wrapper) outlived its starter's SIGKILL", worker)
	}
	if cgroup != "" {
		for end := time.Now().Add(10 * time.Second); time.Now().Before(end); time.Sleep(10 * time.Millisecond) {
			if _, err := os.Stat(cgroup); err != nil {
				break
			}
		}
		if _, err := os.Stat(cgroup); err == nil {
			t.Errorf("cgroup %s left behind", cgroup)
		}
	}
	noListener(t, f.port)
}

// TestTestStateDirRemoved: a Start in a test binary with no state dir
// chosen uses the binary's own childproof-test-* directory, which is
// removed once its last foreground launch is stopped (and made afresh by
// the next Start): no directory is left under $TMPDIR.
func TestTestStateDirRemoved(t *testing.T) {
	if os.Getenv("CHILDPROOF_STATE_DIR") != "" {
		t.Skip("$CHILDPROOF_STATE_DIR chooses the state dir")
	}
	f := newFixture(t)
	for i := range 2 {
		la, err := Start(context.Background(), f.spec("default-dir"), Options{})
		if err != nil {
			t.Fatal(err)
		}
		dir := la.State.Dir
		if !strings.HasPrefix(filepath.Base(dir), "childproof-test-") {
			la.Stop(context.Background())
			t.Fatalf("state dir %s: want the test binary's own", dir)
		}
		la.Stop(context.Background())
		if _, err := os.Stat(dir); err == nil {
			t.Errorf("round %d: %s left behind after the last launch stopped", i, dir)
		}
	}
	// A start that fails gives its reference back too.
	if _, err := Start(context.Background(), &schema.Launch{Name: "bad", Command: []string{"/nonexistent"}}, Options{}); err == nil {
		t.Fatal("started /nonexistent")
	}
	testState.mu.Lock()
	defer testState.mu.Unlock()
	if testState.refs != 0 || testState.dir != "" {
		t.Errorf("after a failed start: %d references, dir %q", testState.refs, testState.dir)
	}
}
