package launchertest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/childproof/childproof/internal/testsupport"
	"github.com/childproof/childproof/launcher"
	"github.com/childproof/childproof/launcher/statedir"
	"github.com/childproof/childproof/proc"
	"github.com/childproof/childproof/schema"
	"github.com/childproof/childproof/verify"
)

// server is the tests' server, launcher/testdata/testserver, built once
// by TestMain: "serve ADDR". SRV_IGNORE_TERM=1: SIGTERM is ignored.
// SRV_SAY: a line printed once listening; SRV_LATE: one printed 200 ms
// later. SRV_FAIL_FIRST=N: the first N requests are answered 503.
var server string

func TestMain(m *testing.M) {
	launcher.RelayMain()
	prog, remove, err := testsupport.BuildProgram("../testdata/testserver", "CHILDPROOF_TESTSERVER")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	server = prog
	code := m.Run()
	remove()
	os.Exit(code)
}

func serverSpec(t *testing.T) *schema.Launch {
	port := FreePort(t)
	return &schema.Launch{
		Name:    "srv",
		Command: []string{server, "serve", fmt.Sprintf("127.0.0.1:%d", port)},
		Env:     map[string]string{"SERVER_KEY": "k"},
		Require: []string{"SERVER_KEY"},
		Ports:   []schema.Port{{Name: "http", Number: port}},
		// A minute, not the default 10 s: make test's library stage runs
		// these tests 20 times under -race beside a compiling lane, and a
		// start returns once ready, so it costs nothing when it passes
		// (tests of a timeout set their own).
		Ready: schema.Ready{HTTP: "/", Timeout: time.Minute},
	}
}

func TestStartAndCleanup(t *testing.T) {
	for i := range 4 {
		var worker verify.Fingerprint
		t.Run(fmt.Sprint("parallel", i), func(t *testing.T) {
			t.Parallel()
			l := serverSpec(t)
			la := Start(t, l, launcher.Options{})
			worker = la.Worker()
			if !la.Report.Verified {
				t.Fatalf("not verified: %+v", la.Report.Problems)
			}
			resp, err := http.Get(fmt.Sprintf("http://127.0.0.1:%d/", l.Ports[0].Number))
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if _, err := la.Verify(t.Context()); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() {
				// Registered after Start's: runs first, the worker still alive.
				if la.Worker().Check(proc.Default) != verify.Alive {
					t.Errorf("the worker died before the cleanup")
				}
			})
		})
		t.Cleanup(func() {
			if worker.Pid != 0 && worker.Check(proc.Default) == verify.Alive {
				t.Errorf("worker pid %d survived its test's cleanup", worker.Pid)
			}
		})
	}
}

// fakeTB records a Fatalf instead of failing the real test, and what is
// written to its Output.
type fakeTB struct {
	testing.TB
	fatal    string
	cleanups []func()
	mu       sync.Mutex
	out      bytes.Buffer
}

func (f *fakeTB) Output() io.Writer { return lockedWriter{f} }

type lockedWriter struct{ f *fakeTB }

func (w lockedWriter) Write(b []byte) (int, error) {
	w.f.mu.Lock()
	defer w.f.mu.Unlock()
	return w.f.out.Write(b)
}

func (f *fakeTB) output() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.out.String()
}

// newFakeTB is a fakeTB over t whose cleanups not run by the test run
// at t's end (the state dir's removal, StateDir's, among them).
func newFakeTB(t *testing.T) *fakeTB {
	f := &fakeTB{TB: t}
	t.Cleanup(f.cleanup)
	return f
}

// startFake runs Start on f and returns its launch (nil when it failed:
// f.fatal says why).
func startFake(f *fakeTB, l *schema.Launch, opts launcher.Options) *launcher.Launch {
	var la *launcher.Launch
	done := make(chan struct{})
	go func() {
		defer close(done)
		la = Start(f, l, opts)
	}()
	<-done
	return la
}

// cleanup runs f's cleanups, last first, and forgets them.
func (f *fakeTB) cleanup() {
	for i := len(f.cleanups) - 1; i >= 0; i-- {
		f.cleanups[i]()
	}
	f.cleanups = nil
}

// Logf keeps what the helper logs, with the streamed output.
func (f *fakeTB) Logf(format string, args ...any) {
	fmt.Fprintf(lockedWriter{f}, format+"\n", args...)
}

func (f *fakeTB) Helper()           {}
func (f *fakeTB) Cleanup(fn func()) { f.cleanups = append(f.cleanups, fn) }
func (f *fakeTB) Fatalf(format string, args ...any) {
	f.fatal = fmt.Sprintf(format, args...)
	runtime.Goexit()
}

func TestStartFailsWithExitStatusAndLastLines(t *testing.T) {
	t.Parallel()
	port := FreePort(t)
	l := &schema.Launch{
		Name:    "dies",
		Command: []string{"sh", "-c", "echo starting; echo 'FATAL: MOCK_LLM_KEY missing' >&2; exit 7"},
		Ports:   []schema.Port{{Number: port}},
	}
	f := newFakeTB(t)
	done := make(chan struct{})
	go func() {
		defer close(done)
		Start(f, l, launcher.Options{})
	}()
	<-done
	t.Log(f.fatal)
	for _, want := range []string{"dies: exited: ", "exit status 7", "FATAL: MOCK_LLM_KEY missing", "starting"} {
		if !strings.Contains(f.fatal, want) {
			t.Errorf("the failure does not say %q:\n%s", want, f.fatal)
		}
	}
	if len(f.cleanups) != 1 { // the state dir's removal (StateDir)
		t.Errorf("a failed start registered %d cleanups, want the state dir's alone", len(f.cleanups))
	}
}

// TestOutputStreamedMasked: what the server prints reaches the test's
// output as "NAME| line", its secret masked; with Output set, that writer.
func TestOutputStreamedMasked(t *testing.T) {
	t.Parallel()
	l := serverSpec(t)
	l.Secret = []string{"SERVER_KEY"}
	l.Env["SERVER_KEY"] = "s3cr3t-value-42"
	l.Env["SRV_SAY"] = "the key is s3cr3t-value-42"
	f := newFakeTB(t)
	la := startFake(f, l, launcher.Options{})
	if la == nil {
		t.Fatal(f.fatal)
	}
	f.cleanup()
	out := f.output()
	if !strings.Contains(out, "srv| serving on 127.0.0.1:") || !strings.Contains(out, "srv| the key is <SERVER_KEY>") {
		t.Errorf("the test output lacks the server's lines, prefixed and masked:\n%s", out)
	}
	if strings.Contains(out, "s3cr3t-value-42") {
		t.Errorf("the secret reached the test output:\n%s", out)
	}

	w := newFakeTB(t)
	l2 := serverSpec(t)
	l2.Env["SRV_SAY"] = "to the writer"
	Start(t, l2, launcher.Options{Output: lockedWriter{w}})
	// The line comes once listening; Ready.Log is not asked for here, so wait for it.
	waitFor(t, func() bool { return strings.Contains(w.output(), "to the writer\n") })
}

// waitFor polls cond (1 ms) for up to 5 s.
func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	for end := time.Now().Add(5 * time.Second); time.Now().Before(end); time.Sleep(time.Millisecond) {
		if cond() {
			return
		}
	}
	t.Fatal("condition not met within 5s")
}

// TestFailureSaysWhereTheLogIs: an early exit's error holds the last lines
// and points to the test log (streamed) instead of the state dir, which
// the test's TempDir cleanup removes; not streamed, the log is printed.
func TestFailureSaysWhereTheLogIs(t *testing.T) {
	t.Parallel()
	l := &schema.Launch{
		Name:    "dies",
		Command: []string{"sh", "-c", "echo line one; echo 'FATAL: no config' >&2; exit 3"},
		Ports:   []schema.Port{{Number: FreePort(t)}},
	}
	f := newFakeTB(t)
	startFake(f, l, launcher.Options{})
	for _, want := range []string{"FATAL: no config", `its whole output is in the test log (its lines start "dies| ")`} {
		if !strings.Contains(f.fatal, want) {
			t.Errorf("the failure does not say %q:\n%s", want, f.fatal)
		}
	}
	if strings.Contains(f.fatal, t.TempDir()[:5]+"") && strings.Contains(f.fatal, "/logs/dies.log") {
		t.Errorf("the failure points to the state dir's log:\n%s", f.fatal)
	}
	if out := f.output(); !strings.Contains(out, "dies| line one") {
		t.Errorf("the output was not streamed before the failure:\n%s", out)
	}

	f = newFakeTB(t)
	startFake(f, l, launcher.Options{Output: io.Discard})
	if !strings.Contains(f.fatal, "the test log, printed in full above") {
		t.Errorf("not streamed, the failure does not point to the printed log:\n%s", f.fatal)
	}
}

// TestNotReadyHasLastLines: a not-ready error (here Ready.Log never
// matching) has the last lines, and speaks Go (Ready.Timeout, no CLI).
func TestNotReadyHasLastLines(t *testing.T) {
	oncePerBinary(t)
	t.Parallel()
	l := serverSpec(t)
	l.Env["SRV_SAY"] = "still loading the model"
	l.Ready.Timeout = 3 * time.Second
	f := newFakeTB(t)
	startFake(f, l, launcher.Options{Output: io.Discard, Ready: launcher.Readiness{Log: regexp.MustCompile("never printed")}})
	for _, want := range []string{"not ready within 3s", `matched Options.Ready.Log "never printed"`, "| still loading the model", "Ready.Timeout is 3s", "Ready.Timeout: 6 * time.Second"} {
		if !strings.Contains(f.fatal, want) {
			t.Errorf("the failure does not say %q:\n%s", want, f.fatal)
		}
	}
	for _, not := range []string{"childproof logs", "ready {"} {
		if strings.Contains(f.fatal, not) {
			t.Errorf("the failure speaks the CLI (%q):\n%s", not, f.fatal)
		}
	}
}

// TestCancelledHasLastLines: a start cancelled through its context says
// so, with the last lines.
func TestCancelledHasLastLines(t *testing.T) {
	t.Parallel()
	l := serverSpec(t)
	l.Env["SRV_SAY"] = "halfway"
	ctx, cancel := context.WithCancel(t.Context())
	f := newFakeTB(t)
	var la *launcher.Launch
	done := make(chan struct{})
	go func() {
		defer close(done)
		la = StartContext(ctx, f, l, launcher.Options{Output: io.Discard, Ready: launcher.Readiness{Func: func(ctx context.Context) error {
			cancel()
			return errors.New("not yet")
		}}})
	}()
	<-done
	if la != nil {
		t.Fatal("a cancelled start returned a launch")
	}
	for _, want := range []string{"halfway", "context canceled"} {
		if !strings.Contains(f.fatal, want) {
			t.Errorf("the failure does not say %q:\n%s", want, f.fatal)
		}
	}
}

// TestReadyLog waits for a line printed 200 ms after the port is owned.
func TestReadyLog(t *testing.T) {
	t.Parallel()
	l := serverSpec(t)
	l.Env["SRV_LATE"] = "model loaded"
	la := Start(t, l, launcher.Options{Ready: launcher.Readiness{Log: regexp.MustCompile(`^model loaded$`)}})
	data, err := os.ReadFile(la.LogPath())
	if err != nil || !strings.Contains(string(data), "model loaded") {
		t.Fatalf("Start returned before the line was printed (%v):\n%s", err, data)
	}
}

// TestReadyLogCount waits for the third line that matches, printed
// 400 ms after the first; a count never reached is not-ready, saying so.
func TestReadyLogCount(t *testing.T) {
	t.Parallel()
	l := serverSpec(t)
	exe, addr := l.Command[0], l.Command[2]
	l.Command = []string{"sh", "-c", `(for i in 1 2 3; do echo "worker $i up"; sleep 0.2; done) & exec "$0" serve "$1"`, exe, addr}
	la := Start(t, l, launcher.Options{Ready: launcher.Readiness{Log: regexp.MustCompile(`^worker \d up$`), LogCount: 3}})
	data, err := os.ReadFile(la.LogPath())
	if err != nil || !strings.Contains(string(data), "worker 3 up") {
		t.Fatalf("Start returned before the third line was printed (%v):\n%s", err, data)
	}
	// The log count is the only condition, so the failure is about it
	// whatever the load: with a port, a slow machine fails the port first.
	l = serverSpec(t)
	l.Ports, l.Ready = nil, schema.Ready{Timeout: time.Second}
	f := newFakeTB(t)
	startFake(f, l, launcher.Options{Ready: launcher.Readiness{Log: regexp.MustCompile(`^serving on`), LogCount: 2}, Output: io.Discard})
	if !strings.Contains(f.fatal, `fewer than 2 lines of its output matched Options.Ready.Log`) {
		t.Errorf("the failure does not say the count was not reached:\n%s", f.fatal)
	}
}

// TestReadyFuncAndHTTPMatcher: Func is called until it returns nil; a
// Status matcher waits out 503s; a Body that never matches is not ready.
func TestReadyFuncAndHTTPMatcher(t *testing.T) {
	t.Parallel()
	var calls atomic.Int64
	l := serverSpec(t)
	l.Env["SRV_FAIL_FIRST"] = "3"
	la := Start(t, l, launcher.Options{Ready: launcher.Readiness{
		Status: func(code int) bool { return code == 200 },
		Body:   regexp.MustCompile(`^ok\n$`),
		Func: func(ctx context.Context) error {
			// Called only once the verified worker owns its port.
			if c, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", l.Ports[0].Number)); err != nil {
				t.Errorf("Func called before the port was owned: %v", err)
			} else {
				c.Close()
			}
			if calls.Add(1) < 3 {
				return errors.New("warming")
			}
			return nil
		},
	}})
	if calls.Load() != 3 || !la.Report.Ready {
		t.Errorf("Func called %d times, ready %v", calls.Load(), la.Report.Ready)
	}

	l3 := serverSpec(t)
	l3.Ready.HTTP = ""
	f := newFakeTB(t)
	startFake(f, l3, launcher.Options{Ready: launcher.Readiness{Status: func(int) bool { return true }}})
	if !strings.Contains(f.fatal, "Ready.HTTP is empty") {
		t.Errorf("a status matcher without Ready.HTTP was not refused:\n%s", f.fatal)
	}
}

// TestReadyBodyNeverMatches: a Body that never matches is not ready,
// and the failure names the matcher.
func TestReadyBodyNeverMatches(t *testing.T) {
	oncePerBinary(t)
	t.Parallel()
	l := serverSpec(t)
	l.Ready.Timeout = 3 * time.Second
	f := newFakeTB(t)
	startFake(f, l, launcher.Options{Output: io.Discard, Ready: launcher.Readiness{Body: regexp.MustCompile("never")}})
	if !strings.Contains(f.fatal, `does not match Options.Ready.Body "never"`) {
		t.Errorf("the failure does not name the body matcher:\n%s", f.fatal)
	}
}

// TestReadyFuncNeverPasses: a Func that never returns nil is not ready
// at the deadline, and the failure says what it returned last.
func TestReadyFuncNeverPasses(t *testing.T) {
	oncePerBinary(t)
	t.Parallel()
	l := serverSpec(t)
	l.Ready.Timeout = 2 * time.Second
	f := newFakeTB(t)
	startFake(f, l, launcher.Options{Output: io.Discard, Ready: launcher.Readiness{
		Func: func(context.Context) error { return errors.New("still warming") },
	}})
	if !strings.Contains(f.fatal, "Options.Ready.Func: still warming") {
		t.Errorf("the failure does not say what Func returned:\n%s", f.fatal)
	}
}

// oncePerBinary skips t after its first run in this test binary: a test
// that waits out a time-out (seconds of a loaded machine's ready
// timeout), run once under make library's -count=20.
func oncePerBinary(t *testing.T) {
	t.Helper()
	onceMu.Lock()
	defer onceMu.Unlock()
	if onceRan[t.Name()] {
		t.Skip("waits out a time-out: run once per test binary")
	}
	onceRan[t.Name()] = true
}

var (
	onceMu  sync.Mutex
	onceRan = map[string]bool{}
)

// TestStopGrace: a server that ignores SIGTERM, with a 1 s grace period,
// is cleaned up in about 1 s (SIGKILL), not StopTimeout.
func TestStopGrace(t *testing.T) {
	oncePerBinary(t) // a second of waiting, measured once (make library runs -count=20)
	t.Parallel()
	l := serverSpec(t)
	l.Env["SRV_IGNORE_TERM"] = "1"
	f := newFakeTB(t)
	la := startFake(f, l, launcher.Options{StopGrace: time.Second})
	if la == nil {
		t.Fatal(f.fatal)
	}
	began := time.Now()
	f.cleanup()
	took := time.Since(began)
	res, _ := la.Stop(t.Context())
	t.Logf("cleanup took %s: %s", took, res.Message)
	// The grace, not StopTimeout, decided: however loaded the machine, the
	// SIGKILL came after the 1 s grace and well before the 10 s default.
	if !res.Killed || took < time.Second || took >= StopTimeout-time.Second {
		t.Errorf("cleanup took %s (killed %v), want the 1s grace, then SIGKILL (not StopTimeout %s)", took, res.Killed, StopTimeout)
	}
	if !strings.Contains(f.output(), "did not exit on SIGTERM within 1s and was SIGKILLed") {
		t.Errorf("the test log does not say the server was SIGKILLed:\n%s", f.output())
	}
}

// TestDiedMidTestReported: a server that dies during the test (here
// SIGKILLed by the test, by its pid) is reported by the cleanup, with how
// it ended and its last lines; one the test stopped itself is not.
func TestDiedMidTestReported(t *testing.T) {
	t.Parallel()
	l := serverSpec(t)
	l.Env["SRV_SAY"] = "serving now"
	f := newFakeTB(t)
	la := startFake(f, l, launcher.Options{})
	if la == nil {
		t.Fatal(f.fatal)
	}
	syscall.Kill(la.Pid(), syscall.SIGKILL) // the server this test started
	<-la.Done()
	f.cleanup()
	for _, want := range []string{"the server had exited before the test's cleanup stopped it", "killed by signal 9", "| serving now"} {
		if !strings.Contains(f.output(), want) {
			t.Errorf("the cleanup's report lacks %q:\n%s", want, f.output())
		}
	}
	g := newFakeTB(t)
	la = startFake(g, serverSpec(t), launcher.Options{})
	if la == nil {
		t.Fatal(g.fatal)
	}
	la.Stop(t.Context())
	g.cleanup()
	if strings.Contains(g.output(), "had exited") {
		t.Errorf("a server the test stopped is reported as dead:\n%s", g.output())
	}
}

// TestMissingButSetInCaller: a required name exported in the caller that
// Inherit does not pass gets the true reason and the Go hint.
func TestMissingButSetInCaller(t *testing.T) {
	t.Setenv("LT_API_KEY", "from-the-test")
	l := serverSpec(t)
	l.Require = []string{"LT_API_KEY"}
	f := newFakeTB(t)
	startFake(f, l, launcher.Options{})
	for _, want := range []string{"LT_API_KEY is set in the caller but not passed: Inherit passes PATH, HOME, LANG (the default)", "add LT_API_KEY to Inherit, or give it a value in Env"} {
		if !strings.Contains(f.fatal, want) {
			t.Errorf("the failure does not say %q:\n%s", want, f.fatal)
		}
	}
	if strings.Contains(f.fatal, "export") {
		t.Errorf("the failure hints an export:\n%s", f.fatal)
	}
}

// TestGOCOVERDIRPassed: with Inherit nil, GOCOVERDIR reaches the server.
func TestGOCOVERDIRPassed(t *testing.T) {
	oncePerBinary(t) // not parallel (t.Setenv): once under -count=N
	dir := t.TempDir()
	t.Setenv("GOCOVERDIR", dir)
	la := Start(t, serverSpec(t), launcher.Options{})
	if la.Env.Vars["GOCOVERDIR"] != dir {
		t.Errorf("GOCOVERDIR not passed: %q", la.Env.Vars["GOCOVERDIR"])
	}
}

// TestGoNames: a broken Launch is reported by its Go field names.
func TestGoNames(t *testing.T) {
	t.Parallel()
	l := serverSpec(t)
	l.Ports = append(l.Ports, schema.Port{Name: "admin", Number: 70000}, schema.Port{Name: "all", Number: FreePort(t), Address: "0.0.0.0"})
	_, err := launcher.Start(t.Context(), l, launcher.Options{StateDir: t.TempDir()})
	for _, want := range []string{"Ports[1].Number", "Ports[2].Address", "AllowAllInterfaces: true"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("the error does not say %q: %v", want, err)
		}
	}
	// The childproof command renders the spec's names from the same error.
	var ie *schema.InvalidError
	if !errors.As(err, &ie) {
		t.Fatalf("no *schema.InvalidError in %v", err)
	}
	ie.GoNames = false
	if !strings.Contains(err.Error(), "port[1].number") {
		t.Errorf("the CLI rendering lost the spec names: %v", err)
	}
}

// TestIsolatedStateDir: launcher.Start with zero Options in a test binary
// uses a state dir of the test binary's own, not the user's.
func TestIsolatedStateDir(t *testing.T) {
	oncePerBinary(t) // not parallel (t.Setenv): once under -count=N
	t.Setenv("CHILDPROOF_STATE_DIR", "")
	la, err := launcher.Start(t.Context(), serverSpec(t), launcher.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer la.Stop(context.Background())
	// The test binary's own state dir serves no other test here (this one
	// runs once per binary): leave no litter under $TMPDIR.
	t.Cleanup(func() { os.RemoveAll(la.State.Dir) })
	def, _ := statedir.DefaultDir()
	if la.State.Dir == def || !strings.HasPrefix(filepath.Base(la.State.Dir), "childproof-test-") {
		t.Errorf("state dir %s (the default is %s)", la.State.Dir, def)
	}
}

// TestStateDirPrivateAndRemoved: StateDir makes a directory only we can
// enter, in statedir.ScratchParent() (a tmpfs when there is one), that a
// launch can use and the test's cleanup removes; with $TMPDIR set it is
// made there.
func TestStateDirPrivateAndRemoved(t *testing.T) {
	oncePerBinary(t) // not parallel (t.Setenv): once under -count=N
	var dir string
	t.Run("made", func(t *testing.T) {
		dir = StateDir(t)
		fi, err := os.Lstat(dir)
		if err != nil {
			t.Fatal(err)
		}
		if !fi.IsDir() || fi.Mode().Perm() != 0o700 {
			t.Errorf("%s: mode %v, want a directory of mode 0700", dir, fi.Mode())
		}
		if got, want := filepath.Dir(dir), statedir.ScratchParent(); got != want {
			t.Errorf("%s is in %s, want %s", dir, got, want)
		}
		la := Start(t, serverSpec(t), launcher.Options{StateDir: dir, Output: io.Discard})
		if !strings.HasPrefix(la.LogPath(), dir+string(filepath.Separator)) {
			t.Errorf("log %s is not in the state dir %s", la.LogPath(), dir)
		}
	})
	if _, err := os.Lstat(dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("%s left after the test's cleanup (%v)", dir, err)
	}
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	if got := filepath.Dir(StateDir(t)); got != tmp {
		t.Errorf("with $TMPDIR set, the state dir is in %s, want %s", got, tmp)
	}
}

// TestPortPlaceholderAndRange: the port is written once, in Ports, and
// FreePortIn keeps to its range.
func TestPortPlaceholderAndRange(t *testing.T) {
	t.Parallel()
	port := FreePortIn(t, 21000, 21999)
	if port < 21000 || port > 21999 {
		t.Fatalf("FreePortIn gave %d", port)
	}
	l := &schema.Launch{
		Name:    "ph",
		Command: []string{server, "serve", `127.0.0.1:{{port "http"}}`},
		Ports:   []schema.Port{{Name: "http", Number: port}},
	}
	la := Start(t, l, launcher.Options{})
	if la.Report.Port == nil || la.Report.Port.Number != port {
		t.Errorf("report port: %+v", la.Report.Port)
	}
	l.Command[2] = `127.0.0.1:{{port "nosuch"}}`
	if _, err := launcher.Start(t.Context(), l, launcher.Options{StateDir: t.TempDir()}); err == nil || !strings.Contains(err.Error(), `no port named "nosuch"`) {
		t.Errorf("an unknown placeholder: %v", err)
	}
	seen := map[int]bool{}
	for range 5 {
		p := FreePortIn(t, 22000, 22999)
		if seen[p] {
			t.Errorf("FreePortIn handed out %d twice", p)
		}
		seen[p] = true
	}
}

// TestUp: dependent launches start in depends_on order, and the test's
// cleanups (last registered first) stop the dependents first.
func TestUp(t *testing.T) {
	t.Parallel()
	db, api := serverSpec(t), serverSpec(t)
	db.Name, api.Name = "db", "api"
	api.DependsOn = []string{"db"}
	f := newFakeTB(t)
	var las map[string]*launcher.Launch
	done := make(chan struct{})
	go func() {
		defer close(done)
		las = Up(f, launcher.Options{}, api, db)
	}()
	<-done
	if f.fatal != "" {
		t.Fatal(f.fatal)
	}
	if las["db"].Record.Started.After(las["api"].Record.Started) {
		t.Errorf("api started before db")
	}
	if las["db"].State.Dir != las["api"].State.Dir {
		t.Errorf("two state dirs: %s, %s", las["db"].State.Dir, las["api"].State.Dir)
	}
	// The state dir's removal (StateDir), then one stop per launch.
	if len(f.cleanups) != 3 {
		t.Fatalf("%d cleanups", len(f.cleanups))
	}
	// The last cleanup registered runs first: it stops api, db still runs.
	f.cleanups[2]()
	if las["api"].Worker().Check(proc.Default) == verify.Alive || las["db"].Worker().Check(proc.Default) != verify.Alive {
		t.Errorf("the first cleanup did not stop api alone")
	}
	f.cleanups[1]()
	if las["db"].Worker().Check(proc.Default) == verify.Alive {
		t.Errorf("db survived its cleanup")
	}
	f.cleanups[0]()
	f.cleanups = nil
	if _, err := os.Lstat(las["db"].State.Dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("state dir %s left (%v)", las["db"].State.Dir, err)
	}
}

// TestArtifactsKeepTheLog runs TestHelperFailsWithArtifacts in a child
// test binary under -artifacts: a failed test's server log is copied into
// its artifact dir, and a failed start's hint names that copy. The child
// is this race binary: a non-race one (go test -c, once per binary) costs
// 1.7-2.5 CPU-s to link and saves about 0.2 a run with
// TestFreePortAcrossBinaries' child, so make test (1 run, then 20) would
// not gain.
func TestArtifactsKeepTheLog(t *testing.T) {
	t.Parallel()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	cmd := exec.Command(exe, "-test.run=^TestHelperFailsWithArtifacts$", "-test.v", "-test.artifacts", "-test.outputdir="+dir, "-test.count=1")
	cmd.Env = append(os.Environ(), "LAUNCHERTEST_HELPER=1")
	out, _ := cmd.CombinedOutput()
	got := string(out)
	for _, want := range []struct{ name, line string }{{"srv", "artifact line"}, {"dies", "FATAL: gone"}} {
		m := regexp.MustCompile(`(` + regexp.QuoteMeta(dir) + `/_artifacts/\S+/` + want.name + `\.log)`).FindStringSubmatch(got)
		if m == nil {
			t.Errorf("the output names no artifact copy of %s's log:\n%s", want.name, got)
			continue
		}
		data, err := os.ReadFile(m[1])
		if err != nil || !strings.Contains(string(data), want.line) {
			t.Errorf("%s: %v\n%s", m[1], err, data)
		}
	}
	if !strings.Contains(got, "hint: its whole output is in "+dir+"/_artifacts/") {
		t.Errorf("the failed start's hint does not name the artifact copy:\n%s", got)
	}
}

// TestHelperFailsWithArtifacts fails on purpose, for TestArtifactsKeepTheLog.
func TestHelperFailsWithArtifacts(t *testing.T) {
	if os.Getenv("LAUNCHERTEST_HELPER") != "1" {
		t.Skip("run by TestArtifactsKeepTheLog")
	}
	t.Run("running", func(t *testing.T) {
		l := serverSpec(t)
		l.Env["SRV_SAY"] = "artifact line"
		la := Start(t, l, launcher.Options{})
		waitFor(t, func() bool {
			data, _ := os.ReadFile(la.LogPath())
			return strings.Contains(string(data), "artifact line")
		})
		t.Error("failing on purpose")
	})
	t.Run("dies", func(t *testing.T) {
		Start(t, &schema.Launch{Name: "dies", Command: []string{"sh", "-c", "echo 'FATAL: gone'; exit 2"}, Ports: []schema.Port{{Number: FreePort(t)}}}, launcher.Options{})
	})
}

// TestFreePortAcrossBinaries: a port this test binary got from
// FreePortIn is refused to another test binary while this one runs
// (nothing listens on it: only the reservation stops the other).
func TestFreePortAcrossBinaries(t *testing.T) {
	t.Parallel()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	port := FreePortIn(t, 23000, 23999)
	cmd := exec.Command(exe, "-test.run=^TestHelperAsksForPort$", "-test.count=1")
	cmd.Env = append(os.Environ(), "LAUNCHERTEST_HELPER=1", fmt.Sprintf("LAUNCHERTEST_PORT=%d", port))
	out, _ := cmd.CombinedOutput()
	if want := fmt.Sprintf("refused: launchertest: FreePortIn(%d, %d): no port of the range is free", port, port); !strings.Contains(string(out), want) {
		t.Errorf("the other binary was not refused the port (want %q):\n%s", want, out)
	}
}

// TestFreePortReleasedAtCleanup: once the test that got a port has
// ended (its cleanups ran), another test binary may have it: the
// reservation does not outlive the test, so a suite's descriptors do not
// pile up.
func TestFreePortReleasedAtCleanup(t *testing.T) {
	t.Parallel()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	var port int
	t.Run("gets", func(t *testing.T) { port = FreePortIn(t, 24000, 24999) })
	cmd := exec.Command(exe, "-test.run=^TestHelperAsksForPort$", "-test.count=1")
	cmd.Env = append(os.Environ(), "LAUNCHERTEST_HELPER=1", fmt.Sprintf("LAUNCHERTEST_PORT=%d", port))
	out, _ := cmd.CombinedOutput()
	if want := fmt.Sprintf("got %d", port); !strings.Contains(string(out), want) {
		t.Errorf("the other binary did not get the port of a test that ended (want %q):\n%s", want, out)
	}
}

// TestHelperAsksForPort asks for the port LAUNCHERTEST_PORT and says
// whether it got it, for TestFreePortAcrossBinaries.
func TestHelperAsksForPort(t *testing.T) {
	if os.Getenv("LAUNCHERTEST_HELPER") != "1" {
		t.Skip("run by TestFreePortAcrossBinaries")
	}
	port, _ := strconv.Atoi(os.Getenv("LAUNCHERTEST_PORT"))
	f := newFakeTB(t)
	done := make(chan struct{})
	go func() {
		defer close(done)
		FreePortIn(f, port, port)
	}()
	<-done
	if f.fatal != "" {
		fmt.Println("refused:", f.fatal)
	} else {
		fmt.Println("got", port)
	}
}

// TestVerificationFailureHasLastLines: a worker whose required variable
// was dropped on the way (a wrapper that unsets it) fails verification,
// and the failure carries the last lines too.
func TestVerificationFailureHasLastLines(t *testing.T) {
	t.Parallel()
	l := serverSpec(t)
	exe, addr := l.Command[0], l.Command[2]
	l.Command = []string{"sh", "-c", `echo "wrapper: dropping the key"; unset SERVER_KEY; exec "$0" serve "$1"`, exe, addr}
	l.Worker = schema.Worker{Exe: exe}
	f := newFakeTB(t)
	startFake(f, l, launcher.Options{Output: io.Discard})
	for _, want := range []string{"verification failed on the worker", "SERVER_KEY", "| wrapper: dropping the key"} {
		if !strings.Contains(f.fatal, want) {
			t.Errorf("the failure does not say %q:\n%s", want, f.fatal)
		}
	}
}

// TestStartInvalidLaunch: a nil launch, and one whose program does not
// exist, fail the test with a message naming what is wrong; nothing
// panics.
func TestStartInvalidLaunch(t *testing.T) {
	t.Parallel()
	f := newFakeTB(t)
	startFake(f, nil, launcher.Options{})
	if !strings.Contains(f.fatal, "no launch") {
		t.Errorf("nil launch: %q", f.fatal)
	}
	g := newFakeTB(t)
	startFake(g, &schema.Launch{Name: "missing", Command: []string{"/nonexistent/server"}}, launcher.Options{})
	if !strings.Contains(g.fatal, "missing: usage error: ") || !strings.Contains(g.fatal, "Command[0]: ") {
		t.Errorf("missing program: %q", g.fatal)
	}
}

// TestShared: Shared starts a server without a testing.TB and its stop
// stops it and removes the state dir it made; a failed start returns the
// *launcher.Error and leaves no state dir.
func TestShared(t *testing.T) {
	t.Parallel()
	l := serverSpec(t)
	la, stop, err := Shared(context.Background(), l, launcher.Options{})
	if err != nil {
		t.Fatal(err)
	}
	dir := la.State.Dir
	stop()
	stop()
	select {
	case <-la.Done():
	default:
		t.Error("the server still runs after stop")
	}
	if _, err := os.Stat(dir); err == nil {
		t.Errorf("state dir %s left behind", dir)
	}
	bad := serverSpec(t)
	bad.Command = []string{"sh", "-c", "echo cannot start; exit 3"}
	_, stop, err = Shared(context.Background(), bad, launcher.Options{})
	stop()
	var e *launcher.Error
	if !errors.As(err, &e) || (e.Report == nil || !e.Report.Has(verify.KindExited)) || len(e.Tail) == 0 || e.Tail[len(e.Tail)-1] != "cannot start" {
		t.Fatalf("err = %v, want an exited *launcher.Error with the tail", err)
	}
	if e.Report == nil || e.Report.Log == "" {
		t.Fatalf("the error names no log: %+v", e.Report)
	}
	if _, err := os.Stat(e.Report.Log); err == nil {
		t.Errorf("the failed start's state dir is left (its log %s)", e.Report.Log)
	}
}
