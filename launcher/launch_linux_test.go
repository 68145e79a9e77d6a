package launcher

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/childproof/childproof/internal/pidfd"
	"github.com/childproof/childproof/internal/sockdiag"
	"github.com/childproof/childproof/launcher/proctree"
	"github.com/childproof/childproof/outcome"
	"github.com/childproof/childproof/proc"
	"github.com/childproof/childproof/schema"
	"github.com/childproof/childproof/verify"
	"golang.org/x/sys/unix"
)

const secret = "s3cr3t-value-never-printed"

type fixture struct {
	bin   string // helper dir
	srv   string // the test server, linked as srv/mock-srv in bin ("": none, spec serves with this binary)
	relay string // detached launches' relay in start ("": this binary)
	state *State
	port  int
}

func newFixture(t *testing.T, names ...string) *fixture {
	t.Helper()
	st, err := OpenState(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	bin := helperBin(t, append([]string{"mock-srv"}, names...)...)
	srv := serverBin(t, bin)
	return &fixture{bin: bin, srv: srv, relay: srv, state: st, port: freePort(t)}
}

func (f *fixture) spec(name string) *schema.Launch {
	return &schema.Launch{
		Name:    name,
		Command: f.serve(),
		Env:     map[string]string{"MOCK_LLM_KEY": secret},
		Require: []string{"MOCK_LLM_KEY"},
		Worker:  schema.Worker{Comm: "mock-srv"},
		Ports:   []schema.Port{{Name: "http", Number: f.port, Address: "127.0.0.1"}},
		Ready:   schema.Ready{HTTP: "/healthz", Timeout: fixtureReady},
	}
}

// serve is the default server's command: the test server, its comm
// mock-srv, when the fixture has it, else this binary's "helper serve".
func (f *fixture) serve() []string {
	if f.srv == "" {
		return f.raceServe()
	}
	return []string{f.srv, "serve", "127.0.0.1:" + strconv.Itoa(f.port)}
}

// raceServe is this race binary's "helper serve" as mock-srv, for a test
// whose assertion depends on the worker being this binary (its file) or
// on its argv (arguments after the address, which serve ignores).
func (f *fixture) raceServe() []string {
	return []string{filepath.Join(f.bin, "mock-srv"), "helper", "serve", "127.0.0.1:" + strconv.Itoa(f.port)}
}

// fixtureReady is the fixture's ready.timeout: a bound on a start that
// should succeed (or fail on a state: an exit, a foreign port), never a
// wait a test means to see expire; tests that expect a not-ready failure
// set a short one of their own. 5 s failed TestRunuserKeepsEnv and
// TestKernelSignalNamed at load 30-68, when mock-srv or python3 took longer
// to start.
const fixtureReady = 30 * time.Second

func (f *fixture) start(t *testing.T, l *schema.Launch, detach bool) (*Launch, error) {
	t.Helper()
	la, err := Start(context.Background(), l, Options{State: f.state, Detach: detach, Relay: f.relay})
	if la != nil {
		t.Cleanup(func() { la.Stop(context.Background()) })
	}
	return la, err
}

func wantCode(t *testing.T, err error, o outcome.Kind, kind verify.Kind) *Error {
	t.Helper()
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("err = %v, want *Error with outcome %s", err, o)
	}
	if e.Outcome != o {
		t.Fatalf("outcome = %s (%v), want %s", e.Outcome, err, o)
	}
	if kind != "" && (e.Report == nil || !e.Report.Has(kind)) {
		t.Fatalf("report lacks problem %s: %+v (err %v)", kind, e.Report, err)
	}
	return e
}

func noListener(t *testing.T, port int) {
	t.Helper()
	ls, err := sockdiag.Listeners(uint16(port))
	if err != nil {
		t.Fatal(err)
	}
	if len(ls) != 0 {
		t.Errorf("a listener is left on port %d: %v", port, ls)
	}
}

func TestStartVerifyStop(t *testing.T) {
	f := newFixture(t)
	la, err := f.start(t, f.spec("ok"), false)
	if err != nil {
		t.Fatal(err)
	}
	r := la.Report
	if !r.Verified || r.Worker == nil || r.Worker.Comm != "mock-srv" || !r.Ready || r.Port == nil || !r.Port.Owned {
		t.Fatalf("report = %+v", r)
	}
	if r.Worker.Pid != la.Root().Pid {
		t.Errorf("worker %d != root %d for a direct command", r.Worker.Pid, la.Root().Pid)
	}
	if len(r.Env) != 1 || r.Env[0].Matches == nil || !*r.Env[0].Matches || r.Env[0].Digest != f.state.Digest("MOCK_LLM_KEY", secret) {
		t.Errorf("env = %+v", r.Env)
	}
	if fp := la.Worker(); fp.PidfsInode == 0 {
		t.Logf("no pidfs inode on this kernel")
	}
	r2, err := la.Verify(context.Background())
	if err != nil || !r2.Verified {
		t.Fatalf("Verify = %+v, %v", r2, err)
	}
	rec, err := f.state.Load("ok")
	if err != nil || rec.Worker.Pid != r.Worker.Pid || rec.WorkerEnv["MOCK_LLM_KEY"] == "" {
		t.Fatalf("record = %+v, %v", rec, err)
	}
	assertNoSecret(t, f.state.Dir)
	res, err := la.Stop(context.Background())
	if err != nil || !res.Signalled || res.Killed || !res.Exited || res.Worker != verify.Alive {
		t.Errorf("Stop = %+v, %v; want SIGTERM enough, the worker alive before", res, err)
	}
	if err != nil {
		t.Fatal(err)
	}
	if l := rec.Worker.Check(la.opts.Proc); l != verify.Gone {
		t.Errorf("after Stop the worker is %s", l)
	}
	noListener(t, f.port)
	if rec, _ := f.state.Load("ok"); rec.Stopped == nil {
		t.Error("record not marked stopped")
	}
}

// assertNoSecret fails when any file under dir holds the secret value.
func assertNoSecret(t *testing.T, dir string) {
	t.Helper()
	filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err == nil && fi.Mode().IsRegular() {
			b, _ := os.ReadFile(p)
			if strings.Contains(string(b), secret) {
				t.Errorf("%s stores the secret value", p)
			}
		}
		return nil
	})
	fi, err := os.Stat(dir)
	if err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("state dir mode = %v, want 0700", fi.Mode().Perm())
	}
	if fi, err := os.Stat(filepath.Join(dir, "key")); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("key mode wrong: %v", err)
	}
}

func TestWorkerDiesBeforeReady(t *testing.T) {
	f := newFixture(t)
	l := f.spec("dies")
	l.Command = []string{filepath.Join(f.bin, "mock-srv"), "helper", "die", "3", "starting", "LLM_PROVIDER_NOT_CONFIGURED: MOCK_LLM_KEY missing"}
	l.Ready.Timeout = 30 * time.Second
	t0 := time.Now()
	_, err := f.start(t, l, false)
	e := wantCode(t, err, outcome.Exited, verify.KindExited)
	if d := time.Since(t0); d > 3*time.Second {
		t.Errorf("took %s: exit 5 must come at once, not at the time-out", d)
	}
	if !strings.Contains(err.Error(), "exit status 3") || !strings.Contains(err.Error(), "LLM_PROVIDER_NOT_CONFIGURED") {
		t.Errorf("error lacks status or last lines: %v", err)
	}
	if len(e.Report.Tail) == 0 {
		t.Error("report has no tail")
	}
}

// TestMissingRequiredEnv: a required name that only inherit could give
// and the caller lacks is refused before anything starts (exit 2); one
// that was passed but that the worker lacks is exit 3 on the worker.
func TestMissingRequiredEnv(t *testing.T) {
	f := newFixture(t)
	l := f.spec("missing")
	l.Require = []string{"MOCK_LLM_KEY", "OTHER_KEY"}
	l.Inherit = []string{"PATH", "OTHER_*"}
	t0 := time.Now()
	_, err := f.start(t, l, false)
	e := wantCode(t, err, outcome.Usage, "")
	if (e.Report == nil || !e.Report.Has(verify.KindEnvMissing)) || !strings.Contains(e.Error(), "OTHER_KEY") || !strings.Contains(e.Error(), "nothing was started") {
		t.Errorf("error = %v (report %+v)", e, e.Report)
	}
	if d := time.Since(t0); d > time.Second {
		t.Errorf("took %s: refused before starting", d)
	}
	if _, err := os.Stat(f.state.LogPath("missing")); err == nil {
		t.Error("a log was written: something started")
	}
	noListener(t, f.port)

	l = f.spec("dropped")
	l.Env["OTHER_KEY"] = "passed-but-dropped"
	l.Require = []string{"MOCK_LLM_KEY", "OTHER_KEY"}
	l.Command = append([]string{"/usr/bin/env", "-u", "OTHER_KEY"}, l.Command...)
	_, err = f.start(t, l, false)
	wantCode(t, err, outcome.Unproven, verify.KindEnvMissing)
	noListener(t, f.port)
}

func TestWrongBindAddress(t *testing.T) {
	f := newFixture(t)
	l := f.spec("bind")
	l.Command[len(l.Command)-1] = "0.0.0.0:" + strconv.Itoa(f.port)
	_, err := f.start(t, l, false)
	wantCode(t, err, outcome.Unproven, verify.KindBindAddress)
	noListener(t, f.port)
}

func TestListenerGrabbedByTreeMember(t *testing.T) {
	f := newFixture(t, "wrapper", "grabber")
	l := f.spec("grab")
	// The worker (comm wrapper) starts a child (comm grabber) that takes the port.
	l.Command = []string{filepath.Join(f.bin, "wrapper"), "helper", "spawn", filepath.Join(f.bin, "grabber"), "helper", "serve", "127.0.0.1:" + strconv.Itoa(f.port)}
	l.Worker.Comm = "wrapper"
	_, err := f.start(t, l, false)
	wantCode(t, err, outcome.Unproven, verify.KindPortNotOwned)
	noListener(t, f.port)
}

func TestConcurrentLaunchLocked(t *testing.T) {
	f := newFixture(t)
	la, err := f.start(t, f.spec("twice"), false)
	if err != nil {
		t.Fatal(err)
	}
	_, err = f.start(t, f.spec("twice"), false)
	e := wantCode(t, err, outcome.Locked, "")
	if !errors.Is(e, ErrLocked) {
		t.Errorf("err %v does not wrap ErrLocked", err)
	}
	if la.Worker().Check(la.opts.Proc) != verify.Alive {
		t.Error("the first launch was disturbed")
	}
}

func TestStaleInstance(t *testing.T) {
	f := newFixture(t)
	first, err := f.start(t, f.spec("stale"), true)
	if err != nil {
		t.Fatal(err)
	}
	// Our own live launch on the port is the lock's answer (exit 6), not
	// a stranger's (exit 4).
	_, err = f.start(t, f.spec("stale"), false)
	if e := wantCode(t, err, outcome.Locked, ""); !errors.Is(e, ErrLocked) || !strings.Contains(e.Msg, fmt.Sprintf("(pid %d)", first.Worker().Pid)) {
		t.Errorf("err %v: not ErrLocked naming pid %d", err, first.Worker().Pid)
	}
	if first.Worker().Check(first.opts.Proc) != verify.Alive {
		t.Fatal("on_stale=fail stopped the previous instance")
	}
	l := f.spec("stale")
	l.OnStale = "replace"
	second, err := f.start(t, l, false)
	if err != nil {
		t.Fatal(err)
	}
	if first.Worker().Check(first.opts.Proc) == verify.Alive {
		t.Error("the previous instance still runs")
	}
	if second.Worker().Pid == first.Worker().Pid {
		t.Error("same worker")
	}
}

func TestStrangerOnPort(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to run a stranger as uid 65534")
	}
	f := newFixture(t)
	stranger := exec.Command(f.srv, "serve", "127.0.0.1:"+strconv.Itoa(f.port))
	stranger.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	out, _ := stranger.StdoutPipe()
	if err := stranger.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { stranger.Process.Kill(); stranger.Wait() }() // our own server, by its handle
	buf := make([]byte, 64)
	out.Read(buf)
	l := f.spec("stranger")
	l.OnStale = "replace"
	_, err := f.start(t, l, false)
	e := wantCode(t, err, outcome.Foreign, verify.KindPortForeign)
	if !strings.Contains(e.Error(), "uid 65534") || !strings.Contains(e.Error(), fmt.Sprintf("pid %d", stranger.Process.Pid)) {
		t.Errorf("census lacks the stranger: %v", e)
	}
	if e.Port != f.port || e.Name != "stranger" || e.Pid != 0 {
		t.Errorf("fields: port %d name %q pid %d, want port %d, the launch's name, no pid (nothing was started)", e.Port, e.Name, e.Pid, f.port)
	}
	if err := stranger.Process.Signal(syscall.Signal(0)); err != nil {
		t.Errorf("the stranger was signalled: %v", err)
	}
}

func TestDispatchIgnoresRcFiles(t *testing.T) {
	f := newFixture(t)
	home := t.TempDir()
	hostile := "unset MOCK_LLM_KEY\nexport MOCK_LLM_KEY=\n"
	for _, n := range []string{".bash_profile", ".bashrc", ".profile", "bash_env"} {
		os.WriteFile(filepath.Join(home, n), []byte(hostile), 0o644)
	}
	script := filepath.Join(home, "dispatch.sh")
	os.WriteFile(script, []byte("exec \"$1\" serve \"$2\"\n"), 0o755)
	l := f.spec("dispatch")
	l.Command = nil
	l.Dispatch = []string{script, f.srv, "127.0.0.1:" + strconv.Itoa(f.port)}
	l.Inherit = []string{"PATH", "HOME", "BASH_ENV", "ENV"}
	env := map[string]string{"PATH": os.Getenv("PATH"), "HOME": home, "BASH_ENV": filepath.Join(home, "bash_env"), "ENV": filepath.Join(home, "bash_env")}
	lookup := func(n string) (string, bool) { v, ok := env[n]; return v, ok }
	la, err := Start(context.Background(), l, Options{State: f.state, EnvInput: EnvInput{LookupEnv: lookup}})
	if err != nil {
		t.Fatal(err)
	}
	defer la.Stop(context.Background())
	if !la.Report.Verified {
		t.Fatalf("report %+v", la.Report)
	}
	if got := la.Env.Removed; len(got) != 2 {
		t.Errorf("Removed = %v, want BASH_ENV and ENV", got)
	}

	// The same script through a login interactive shell loses the key.
	la.Stop(context.Background())
	os.WriteFile(script, []byte("bash -lic \"\\\"$1\\\" serve $2; true\"\n"), 0o755)
	_, err = Start(context.Background(), l, Options{State: f.state, EnvInput: EnvInput{LookupEnv: lookup}})
	e := wantCode(t, err, outcome.Unproven, verify.KindEnvMissing)
	if !e.Report.Has(verify.KindWrapper) {
		t.Errorf("the login shell in the chain is not reported: %+v", e.Report.Problems)
	}
	noListener(t, f.port)
}

func TestForegroundSignalAndExitCode(t *testing.T) {
	f := newFixture(t)
	la, err := f.start(t, f.spec("fg"), false)
	if err != nil {
		t.Fatal(err)
	}
	la.Signal(syscall.SIGTERM)
	st := la.Wait()
	if st != (ExitStatus{Code: -1, Signal: syscall.SIGTERM}) || st.ExitCode() != 143 {
		t.Errorf("Wait = %+v (%s), want killed by SIGTERM, 143", st, st)
	}
	// Stop after Wait says what stopping did: the tree was already gone.
	res, err := la.Stop(context.Background())
	if err != nil || res.Signalled || res.Killed || !res.Exited {
		t.Errorf("Stop after Wait = %+v, %v; want nothing sent, exited", res, err)
	}
	noListener(t, f.port)
}

func TestVerifyPidBelowWrapper(t *testing.T) {
	f := newFixture(t, "wrapper")
	l := f.spec("wrapped")
	l.Command = []string{filepath.Join(f.bin, "wrapper"), "helper", "spawn", f.srv, "serve", "127.0.0.1:" + strconv.Itoa(f.port)}
	la, err := f.start(t, l, false)
	if err != nil {
		t.Fatal(err)
	}
	if la.Worker().Pid == la.Root().Pid || len(la.Report.Chain) != 1 {
		t.Fatalf("worker %d root %d chain %+v", la.Worker().Pid, la.Root().Pid, la.Report.Chain)
	}
	v := &verify.Verifier{State: f.state}
	r := v.Verify(context.Background(), verify.Check{Name: "x", Root: la.Root().Pid, Expect: verify.Expect{Values: map[string]string{"MOCK_LLM_KEY": secret}},
		Ports: []schema.Port{{Number: f.port}}, AnyAddress: true})
	if !r.Verified || r.Worker.Pid != la.Worker().Pid {
		t.Fatalf("verify --pid on the wrapper: %+v", r)
	}
	r = v.Verify(context.Background(), verify.Check{Name: "x", Root: la.Root().Pid, Expect: verify.Expect{Values: map[string]string{"MOCK_LLM_KEY": "other"}}})
	if r.Verified || !r.Has(verify.KindEnvMismatch) {
		t.Fatalf("mismatch not found: %+v", r)
	}
}

func TestPidReuse(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to write /proc/sys/kernel/ns_last_pid")
	}
	f := newFixture(t)
	a := exec.Command(filepath.Join(f.bin, "helper"), "helper", "sleep")
	if err := a.Start(); err != nil {
		t.Fatal(err)
	}
	fp, err := verify.TakeFingerprint(procDefault, a.Process.Pid)
	if err != nil {
		t.Fatal(err)
	}
	a.Process.Kill()
	a.Wait()
	var b *exec.Cmd
	for range 20 {
		os.WriteFile("/proc/sys/kernel/ns_last_pid", []byte(strconv.Itoa(fp.Pid-1)), 0)
		c := exec.Command(filepath.Join(f.bin, "helper"), "helper", "sleep")
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
		if c.Process.Pid == fp.Pid {
			b = c
			break
		}
		c.Process.Kill()
		c.Wait()
	}
	if b == nil {
		t.Skip("could not place a process on the old pid")
	}
	defer func() { b.Process.Kill(); b.Wait() }()
	if l := fp.Check(procDefault); l != verify.Reused {
		t.Fatalf("Check = %s, want pid reused", l)
	}
	rec := &Record{Name: "reused", Root: fp, Worker: fp, Pgid: fp.Pid}
	res, err := StopRecord(context.Background(), procDefault, f.state, rec, time.Second)
	if err != nil || res.Signalled || res.Worker != verify.Reused {
		t.Fatalf("StopRecord = %+v, %v", res, err)
	}
	if err := b.Process.Signal(syscall.Signal(0)); err != nil {
		t.Error("the newcomer on the reused pid was signalled")
	}
}

func TestCgroupOwnsTree(t *testing.T) {
	if os.Geteuid() != 0 || proctree.Cgroup2Root() == "" || os.Getenv("CHILDPROOF_NO_CGROUP") != "" {
		t.Skip("needs root and cgroup v2 (and CHILDPROOF_NO_CGROUP unset)")
	}
	f := newFixture(t, "wrapper")
	l := f.spec("cg")
	l.Command = []string{filepath.Join(f.bin, "wrapper"), "helper", "spawn", f.srv, "serve", "127.0.0.1:" + strconv.Itoa(f.port)}
	la, err := f.start(t, l, false)
	if err != nil {
		t.Fatal(err)
	}
	if la.tree.Cgroup == "" {
		t.Fatal("no cgroup although root on cgroup v2")
	}
	pids, _ := proctree.CgroupPids(la.tree.Cgroup)
	if len(pids) != 2 {
		t.Errorf("cgroup.procs = %v, want wrapper and worker", pids)
	}
	dir := la.tree.Cgroup
	la.Stop(context.Background())
	if _, err := os.Stat(dir); err == nil {
		t.Errorf("cgroup %s left behind", dir)
	}
}

// TestSupervisorKilled: SIGKILL of a foreground supervisor takes its worker
// with it (parent-death signal), leaving no listener.
func TestSupervisorKilled(t *testing.T) {
	f := newFixture(t)
	sup := exec.Command(filepath.Join(f.bin, "helper"), "helper", "supervise", f.state.Dir, filepath.Join(f.bin, "mock-srv"), strconv.Itoa(f.port))
	out, _ := sup.StdoutPipe()
	if err := sup.Start(); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 64)
	n, _ := out.Read(buf)
	pid, err := strconv.Atoi(strings.TrimSpace(string(buf[:n])))
	if err != nil {
		sup.Process.Kill()
		sup.Wait()
		t.Fatalf("supervisor said %q", buf[:n])
	}
	fp, err := verify.TakeFingerprint(procDefault, pid)
	if err != nil {
		t.Fatal(err)
	}
	sup.Process.Kill() // our own helper, through its pidfd
	sup.Wait()
	for i := 0; fp.Check(procDefault) == verify.Alive && i < 200; i++ {
		time.Sleep(5 * time.Millisecond)
	}
	if l := fp.Check(procDefault); l == verify.Alive {
		t.Fatalf("the worker survived its supervisor's SIGKILL")
	}
	for i := 0; i < 200; i++ {
		if ls, _ := sockdiag.Listeners(uint16(f.port)); len(ls) == 0 {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	noListener(t, f.port)
}

// TestSupervisorTerm: SIGTERM to a foreground supervisor (run) is forwarded
// to the worker's group; the supervisor exits with the worker's status.
func TestSupervisorTerm(t *testing.T) {
	f := newFixture(t)
	sup := exec.Command(filepath.Join(f.bin, "helper"), "helper", "supervise", f.state.Dir, filepath.Join(f.bin, "mock-srv"), strconv.Itoa(f.port))
	out, _ := sup.StdoutPipe()
	if err := sup.Start(); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 64)
	out.Read(buf)
	// The library does not install handlers: the supervisor here dies of
	// SIGTERM itself, and its worker follows through the parent-death signal.
	sup.Process.Signal(syscall.SIGTERM)
	sup.Wait()
	// The worker dies of the parent-death signal: give it up to 5 s (a
	// loaded machine) to let go of the port.
	for end := time.Now().Add(5 * time.Second); time.Now().Before(end); time.Sleep(10 * time.Millisecond) {
		if ls, _ := sockdiag.Listeners(uint16(f.port)); len(ls) == 0 {
			break
		}
	}
	noListener(t, f.port)
}

// TestPreflightInvisibleHolder: a listener whose holder no visible process
// has (another pid namespace, unreadable fds) is exit 4, never "free".
func TestPreflightInvisibleHolder(t *testing.T) {
	f := newFixture(t)
	ln, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(f.port))
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	empty := proc.FS{Root: t.TempDir()} // a /proc in which no process is visible
	err = preflight(context.Background(), &verify.Verifier{Proc: empty, State: f.state}, f.state, f.spec("invisible"), nil)
	e := wantCode(t, err, outcome.Foreign, verify.KindPortForeign)
	if !strings.Contains(e.Error(), "no visible process") {
		t.Errorf("census = %v", e)
	}
}

// TestAttemptsRetryOnlyRaces: a wrong environment is not retried.
func TestAttemptsRetryOnlyRaces(t *testing.T) {
	f := newFixture(t)
	l := f.spec("once")
	l.Attempts = 3
	l.Env["NOT_THERE"] = "x"
	l.Require = append(l.Require, "NOT_THERE")
	l.Command = append([]string{"/usr/bin/env", "-u", "NOT_THERE"}, l.Command...)
	_, err := f.start(t, l, false)
	e := wantCode(t, err, outcome.Unproven, verify.KindEnvMissing)
	if e.Report.Attempts != 1 {
		t.Errorf("attempts = %d, want 1: an env mismatch is never retried", e.Report.Attempts)
	}
	l = f.spec("never")
	l.Attempts = 2
	l.Worker.Comm = "no-such-comm"
	l.Ports = nil // nothing serves: the selector cannot be judged wrong
	l.Ready.Timeout = 100 * time.Millisecond
	_, err = f.start(t, l, false)
	e = wantCode(t, err, outcome.Exited, verify.KindNotReady)
	if e.Report.Attempts != 2 {
		t.Errorf("attempts = %d, want 2: a worker that never appeared is a race", e.Report.Attempts)
	}
	// The same selector while a member of the tree owns the port: the
	// selector is wrong, told at once (not after ready.timeout), and not
	// retried.
	l = f.spec("wrong")
	l.Attempts = 2
	l.Worker.Comm = "no-such-comm"
	l.Ready.Timeout = time.Minute
	began := time.Now()
	_, err = f.start(t, l, false)
	e = wantCode(t, err, outcome.Exited, verify.KindExited)
	if e.Report.Attempts != 1 || time.Since(began) > 30*time.Second || !strings.Contains(e.Msg, `comm "no-such-comm" matches nothing`) || !strings.Contains(e.Hint, "not the timeout") {
		t.Errorf("wrong selector: attempts %d after %s: %s (hint %s)", e.Report.Attempts, time.Since(began), e.Msg, e.Hint)
	}
	noListener(t, f.port)
}

// TestWaitForBackgroundWorker: a root that starts the worker in the
// background and exits at once does not end supervision: Wait waits for
// the worker and returns its status.
func TestWaitForBackgroundWorker(t *testing.T) {
	f := newFixture(t)
	l := f.spec("bg")
	l.Command = []string{"sh", "-c", "\"$0\" serve \"$1\" & exit 0", f.srv, "127.0.0.1:" + strconv.Itoa(f.port)}
	la, err := Start(context.Background(), l, Options{State: f.state, Tracking: Tracking{Subreaper: true}})
	if err != nil {
		t.Fatal(err)
	}
	defer la.Stop(context.Background())
	<-la.Done() // the root has exited with 0 …
	if la.Worker().Check(procDefault) != verify.Alive {
		t.Fatal("the worker died with its root")
	}
	got := make(chan int, 1)
	go func() { got <- la.Wait().ExitCode() }()
	select {
	case c := <-got:
		t.Fatalf("Wait returned %d while the worker runs", c)
	case <-time.After(100 * time.Millisecond):
	}
	la.Signal(syscall.SIGTERM)
	select {
	case c := <-got:
		if c != 128+int(syscall.SIGTERM) {
			t.Errorf("Wait = %d, want the worker's 143", c)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Wait did not return after the worker's exit")
	}
	noListener(t, f.port)
}

// TestPortGrabbedAfterPreflight: a newcomer takes the port between the
// preflight and the worker's bind. The attempt fails as a race; the retry's
// preflight finds the newcomer still there: exit 4, and it is left alone.
func TestPortGrabbedAfterPreflight(t *testing.T) {
	f := newFixture(t)
	l := f.spec("grabbed")
	// The first attempt's tree starts (the preflight found the port free),
	// says so, and binds only once the newcomer holds the port: states,
	// not times (a loaded machine stretched a 100 ms vs 0.3 s race).
	gate := t.TempDir()
	started, open := filepath.Join(gate, "started"), filepath.Join(gate, "go")
	l.Command = []string{"sh", "-c", `if [ ! -e "$3" ]; then : > "$2"; while [ ! -e "$3" ]; do sleep 0.01; done; fi; exec "$0" serve "$1"`,
		f.srv, "127.0.0.1:" + strconv.Itoa(f.port), started, open}
	l.Worker = schema.Worker{}
	l.Attempts = 3
	grabbed := make(chan net.Listener, 1)
	go func() {
		for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
			if _, err := os.Stat(started); err == nil {
				break
			}
		}
		ln, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(f.port))
		if err != nil {
			t.Error(err)
		}
		os.WriteFile(open, nil, 0o600)
		grabbed <- ln
	}()
	_, err := f.start(t, l, false)
	ln := <-grabbed
	if ln == nil {
		t.Fatal("could not grab the port")
	}
	defer ln.Close()
	e := wantCode(t, err, outcome.Foreign, verify.KindPortForeign)
	if !strings.Contains(e.Error(), fmt.Sprintf("pid %d", os.Getpid())) {
		t.Errorf("the newcomer is not named: %v", e)
	}
	if _, err := net.Dial("tcp", ln.Addr().String()); err != nil {
		t.Errorf("the newcomer's listener was disturbed: %v", err)
	}
}

// TestRebuiltBinaryStillOurs: replacing the worker's binary while it runs
// (exe becomes "PATH (deleted)") does not make it a stranger.
func TestRebuiltBinaryStillOurs(t *testing.T) {
	f := newFixture(t)
	l := f.spec("rebuilt")
	l.Command = f.raceServe() // its file is what the test replaces
	la, err := f.start(t, l, true)
	if err != nil {
		t.Fatal(err)
	}
	// mock-srv is a symlink to helper: replace helper, as go build does.
	helper := filepath.Join(f.bin, "helper")
	data, _ := os.ReadFile(helper)
	os.Remove(helper)
	os.WriteFile(helper, data, 0o755)
	if exe, _ := procDefault.Exe(la.Worker().Pid); !strings.HasSuffix(exe, " (deleted)") {
		t.Fatalf("exe = %q, want a deleted binary", exe)
	}
	if l := la.Worker().Check(procDefault); l != verify.Alive {
		t.Fatalf("after a rebuild the worker is %s", l)
	}
	rec, _ := f.state.Load("rebuilt")
	res, err := StopRecord(context.Background(), procDefault, f.state, rec, 5*time.Second)
	if err != nil || !res.Signalled || !res.Exited {
		t.Fatalf("StopRecord = %+v, %v", res, err)
	}
	noListener(t, f.port)
}

// TestAllInterfacesAllowed: a declared 0.0.0.0 with allow_all_interfaces
// accepts Go's dual-stack [::] socket, and readiness connects to loopback.
func TestAllInterfacesAllowed(t *testing.T) {
	f := newFixture(t)
	l := f.spec("all")
	l.Command[len(l.Command)-1] = "0.0.0.0:" + strconv.Itoa(f.port)
	l.Ports[0].Address, l.Ports[0].AllowAllInterfaces = "0.0.0.0", true
	la, err := f.start(t, l, false)
	if err != nil {
		t.Fatal(err)
	}
	if !la.Report.Verified || !la.Report.Ready {
		t.Fatalf("report = %+v", la.Report)
	}
}

// TestStopLeftoversOfGoneWorker: the worker killed on its own (a pre-fork
// master that got SIGKILL) leaves a child in the launch's cgroup; stopping
// the record ends it although the worker is gone.
func TestStopLeftoversOfGoneWorker(t *testing.T) {
	f := newFixture(t)
	l := f.spec("leftover")
	pidfile := filepath.Join(t.TempDir(), "child")
	l.Command = append([]string{"sh", "-c", `sleep 600 & echo $! > "$0"; exec "$@"`, pidfile}, l.Command...)
	la, err := f.start(t, l, true)
	if err != nil {
		t.Fatal(err)
	}
	if la.Record.Cgroup == "" {
		t.Skip("no cgroup for the launch here (root on cgroup v2 only): nothing identifies what the worker leaves")
	}
	b, _ := os.ReadFile(pidfile)
	child, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	cfd, err := unix.PidfdOpen(child, 0)
	if err != nil {
		t.Fatalf("the child %q: %v", b, err)
	}
	defer unix.Close(cfd)
	t.Cleanup(func() { unix.PidfdSendSignal(cfd, unix.SIGKILL, nil, 0) })
	wfd, _, err := la.Worker().Open(procDefault)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(wfd)
	unix.PidfdSendSignal(wfd, unix.SIGKILL, nil, 0) // the worker only, not its group
	for !pidfd.Exited(wfd) {
		time.Sleep(5 * time.Millisecond)
	}
	rec, _ := f.state.Load("leftover")
	res, err := StopRecord(context.Background(), procDefault, f.state, rec, 5*time.Second)
	if err != nil || !strings.Contains(res.Message, "already gone") || !res.Signalled {
		t.Fatalf("StopRecord = %+v, %v", res, err)
	}
	for i := 0; i < 500 && !pidfd.Exited(cfd); i++ {
		time.Sleep(10 * time.Millisecond)
	}
	if !pidfd.Exited(cfd) {
		t.Errorf("the worker's child (pid %d) still runs: %s", child, res.Message)
	}
}

// TestRunuserKeepsEnv: runuser -u keeps the environment (only HOME, USER
// and LOGNAME are set anew), so the live chain check does not call it an
// env-reset when the worker has every value; runuser -l does reset it.
func TestRunuserKeepsEnv(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("runuser needs root")
	}
	runuser, err := exec.LookPath("runuser")
	if err != nil {
		t.Skip("no runuser (util-linux)")
	}
	f := newFixture(t)
	dir := t.TempDir()
	script := filepath.Join(dir, "dispatch.sh")
	os.WriteFile(script, []byte(runuser+" -u root -- \"$1\" serve \"$2\"\n"), 0o755)
	l := f.spec("runuser")
	l.Command = nil
	l.Dispatch = []string{script, f.srv, "127.0.0.1:" + strconv.Itoa(f.port)}
	la, err := f.start(t, l, false)
	if err != nil {
		t.Fatal(err)
	}
	if !la.Report.Verified || la.Report.Has(verify.KindWrapper) {
		t.Fatalf("runuser -u: report %+v", la.Report)
	}
	la.Stop(context.Background())
	noListener(t, f.port)

	os.WriteFile(script, []byte(runuser+" -l root -c \"\\\"$1\\\" serve $2\"\n"), 0o755)
	_, err = f.start(t, l, false)
	var e *Error
	if !errors.As(err, &e) || e.Report == nil || !e.Report.Has(verify.KindWrapper) {
		t.Fatalf("runuser -l in the chain is not reported: %v", err)
	}
	noListener(t, f.port)
}
