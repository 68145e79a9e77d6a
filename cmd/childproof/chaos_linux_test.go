package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/childproof/childproof/internal/logrelay"
	"github.com/childproof/childproof/launcher"
	"github.com/childproof/childproof/launcher/launchertest"
	"github.com/childproof/childproof/launcher/statedir"
	"github.com/childproof/childproof/proc"
	"golang.org/x/sys/unix"
)

// TestChaosOwnership is the bounded chaos test of the ownership invariant
// (issue 20): for a few spec shapes — a server on a port, a portless
// worker, a dispatch that forks a child, a dispatch that leaves a setsid
// daemon, a worker that ignores SIGTERM, a two-rank job — several
// goroutines run random sequences of run --detach, relaunch --set, stop,
// up --detach, down and ps at once, and SIGKILL random childproof
// processes at random moments. Afterwards every live process that carries
// one of the test's launch markers must be a member of a record that ps
// shows alive or unverified, none may sit in a ptrace stop, and stop of
// every record must leave none. With and without a cgroup
// (CHILDPROOF_NO_CGROUP=1). CHILDPROOF_CHAOS_TIME sets each mode's
// duration (default 12s; ≤ 2 min in CI in all).
func TestChaosOwnership(t *testing.T) {
	t.Parallel() // alongside the scripts: its processes, dirs and marker prefix are its own
	if testing.Short() {
		t.Skip("chaos: -short")
	}
	dur := 12 * time.Second
	if d, err := time.ParseDuration(os.Getenv("CHILDPROOF_CHAOS_TIME")); err == nil {
		dur = d
	}
	for _, mode := range []string{"cgroup", "nocgroup", "unprivileged"} {
		t.Run(mode, func(t *testing.T) {
			if mode != "nocgroup" && os.Geteuid() != 0 {
				t.Skipf("%s needs root", mode)
			}
			chaos(t, mode, dur)
		})
	}
}

// asNobody prepares e for commands run as the unprivileged user nobody:
// a spec dir of its own (readable, its state dir nobody's) with a copy of
// the test binary in its bin/ (testscript's is private to root), and the
// credential to run with.
func asNobody(t *testing.T, e *faultEnv) (*syscall.Credential, string) {
	u, err := user.Lookup("nobody")
	if err != nil {
		t.Skipf("no user nobody: %v", err)
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	bin, err := exec.LookPath("childproof")
	if err != nil {
		t.Skip(err)
	}
	dir, err := os.MkdirTemp("", "childproof-chaos-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	os.Chmod(dir, 0o755)
	os.Chown(dir, uid, gid)
	binDir := filepath.Join(dir, "bin")
	os.Mkdir(binDir, 0o755)
	b, err := os.ReadFile(bin)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(binDir, "childproof"), b, 0o755); err != nil {
		t.Fatal(err)
	}
	for d := dir; d != "/"; d = filepath.Dir(d) {
		if fi, err := os.Stat(d); err != nil || fi.Mode().Perm()&0o001 == 0 {
			t.Skipf("nobody cannot reach %s: %s is not searchable by others", dir, d)
		}
	}
	e.dir, e.state = dir, filepath.Join(dir, "state")
	return &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}, binDir
}

// chaosShapes are the launches of the chaos spec: name suffix → block body.
var chaosShapes = []struct{ name, body string }{
	{"port", `  command = ["childproof"]
  env = {
    CHILDPROOF_TEST_SERVE = "127.0.0.1:%[1]d"
    GORACE = "atexit_sleep_ms=0"
  }
  port "http" {
    number = %[1]d
  }`},
	{"portless", `  command = ["sleep", "600"]
  worker {
    comm = "sleep"
  }`},
	{"forks", `  dispatch = ["forks.sh"]
  worker {
    comm = "sleep"
  }`},
	{"daemon", `  dispatch = ["daemon.sh"]
  worker {
    comm = "sleep"
  }`},
	{"stubborn", `  command = ["sh", "-c", "trap '' TERM; while :; do sleep 0.05; done"]
  worker {
    comm = "sh"
  }`},
	{"ranks", `  dispatch = ["ranks.sh"]
  worker {
    comm  = "sleep"
    count = 2
  }`},
}

func chaos(t *testing.T, mode string, dur time.Duration) {
	e := newFaultEnv(t)
	noCgroup := mode == "nocgroup" || mode == "unprivileged"
	fault := chaosFaults[mode] // the state dir faults (faultfs_linux_test.go); nil: none
	if fault.prepare != nil {
		fault.prepare(t, e)
	}
	var cred *syscall.Credential
	var env []string
	bin := "childproof"
	binDir := ""
	if mode == "unprivileged" {
		cred, binDir = asNobody(t, e)
		bin = filepath.Join(binDir, "childproof")
	}
	command := func(ctx context.Context, args ...string) *exec.Cmd {
		c := exec.CommandContext(ctx, bin, args...)
		c.Env = append(os.Environ(), env...)
		c.Dir = e.dir
		if cred != nil {
			c.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
		}
		return c
	}
	prefix := chaosPrefix()
	env = []string{"CHILDPROOF_STATE_DIR=" + e.state, "GORACE=atexit_sleep_ms=0"}
	if noCgroup {
		env = append(env, "CHILDPROOF_NO_CGROUP=1")
	}
	if binDir != "" {
		env = append(env, "PATH="+binDir+":"+os.Getenv("PATH"))
	}
	var spec strings.Builder
	var names []string
	for i, sh := range chaosShapes {
		name := prefix + "-" + sh.name
		names = append(names, name)
		body := sh.body
		if strings.Contains(body, "%[1]d") {
			body = fmt.Sprintf(body, launchertest.FreePort(t))
		}
		stale := "replace"
		if i%2 == 1 {
			stale = "fail"
		}
		fmt.Fprintf(&spec, "launch %q {\n%s\n  on_stale = %q\n  ready {\n    timeout = \"5s\"\n  }\n}\n\n", name, body, stale)
	}
	files := map[string]string{
		"chaos.hcl": spec.String(),
		"forks.sh":  "tail -f /dev/null &\nexec sleep 600\n",
		"daemon.sh": "( setsid tail -f /dev/null </dev/null >/dev/null 2>&1 & )\nexec sleep 600\n",
		"ranks.sh":  "sleep 600 &\nsleep 601 &\nwait\n",
	}
	for f, src := range files {
		if err := os.WriteFile(filepath.Join(e.dir, f), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	specPath := filepath.Join(e.dir, "chaos.hcl")
	var sequences, ops, kills, hung atomic.Int64
	// cleanup: whatever the invariant check finds is stopped by pid at the
	// end (our own descendants only: the test's marker prefix).
	t.Cleanup(func() { killMarked(prefix) })

	op := func(rng *rand.Rand) {
		name := names[rng.IntN(len(names))]
		var args []string
		switch rng.IntN(6) {
		case 0:
			args = []string{"run", "--detach", "--no-lint", specPath + ":" + name}
		case 1:
			args = []string{"relaunch", name, "--detach", "--set", "CHAOS_N=" + strconv.Itoa(rng.IntN(1000))}
		case 2:
			args = []string{"stop", "--timeout", "300ms", name}
		case 3:
			args = []string{"up", "--detach", specPath, name}
		case 4:
			args = []string{"down", "--timeout", "300ms", specPath, name}
		default:
			args = []string{"ps", "--all"}
		}
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		c := command(ctx, args...)
		if err := c.Start(); err != nil {
			t.Error(err)
			return
		}
		ops.Add(1)
		done := make(chan struct{})
		if rng.IntN(4) == 0 {
			delay := time.Duration(rng.IntN(400)) * time.Millisecond
			go func() {
				select {
				case <-done:
				case <-time.After(delay):
					if c.Process.Kill() == nil { // through its pidfd
						kills.Add(1)
					}
				}
			}()
		}
		c.Wait()
		close(done)
		if ctx.Err() != nil {
			// No command may hang, whatever the state dir does.
			hung.Add(1)
			t.Errorf("childproof %v did not end within 30 s (killed)", args)
		}
	}
	var wg sync.WaitGroup
	end := time.Now().Add(dur)
	var faults atomic.Int64
	stopFault, faultDone := make(chan struct{}), make(chan struct{})
	if fault.inject != nil {
		go func() {
			defer close(faultDone)
			faults.Store(int64(fault.inject(e, names, stopFault)))
		}()
	} else {
		close(faultDone)
	}
	for g := range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), uint64(g)))
			for time.Now().Before(end) {
				sequences.Add(1)
				for range 1 + rng.IntN(4) {
					op(rng)
				}
			}
		}()
	}
	wg.Wait()
	// The faults end, the state dir as it was, before the check.
	close(stopFault)
	<-faultDone

	// The invariant: every marked process is a member of a record ps
	// shows alive (or unverified), none is in a ptrace stop.
	checks, marked, relays := 0, len(markedPids(prefix)), len(relayPids(prefix))
	var census []censusEntry
	for attempt := 0; ; attempt++ {
		census = chaosPS(t, command(context.Background(), "ps", "--all", "--format", "json"))
		bad := chaosViolations(t, e, prefix, census)
		checks++
		if len(bad) == 0 {
			break
		}
		if attempt == 20 {
			// A launch whose childproof was killed leaves processes that
			// exit on their own (an aborted launch's SIGTERM in flight):
			// only what stays is a violation.
			t.Errorf("ownership violated:\n  %s", strings.Join(bad, "\n  "))
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	// stop of every record leaves nothing.
	for _, n := range names {
		command(context.Background(), "stop", "--timeout", "300ms", n).Run()
	}
	var left []int
	for range 100 {
		if left = append(markedPids(prefix), relayPids(prefix)...); len(left) == 0 {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	checks++
	if len(left) > 0 {
		t.Errorf("after stop of every record, marked processes live on: %v", describePids(left))
	}
	t.Logf("chaos (%s, %s): %d sequences, %d commands (%d hung), %d SIGKILLs, %d state dir faults, %d invariant checks, %d marked processes, %d log relays and %d records at the end",
		mode, dur, sequences.Load(), ops.Load(), hung.Load(), kills.Load(), faults.Load(), checks, marked, relays, len(census))
}

// chaosPrefixes are the marker prefixes taken in this process: chaos tests
// run at the same time, each checking only the processes of its own.
var chaosPrefixes sync.Map

// chaosPrefix is a random launch-name prefix no other chaos run of this
// process has.
func chaosPrefix() string {
	for {
		p := fmt.Sprintf("chaos%04x", rand.IntN(1<<16))
		if _, taken := chaosPrefixes.LoadOrStore(p, true); !taken {
			return p
		}
	}
}

func chaosPS(t *testing.T, c *exec.Cmd) []censusEntry {
	out, err := c.Output()
	if err != nil {
		t.Fatalf("ps: %v", err)
	}
	var ps struct {
		Launches []censusEntry `json:"launches"`
	}
	if err := json.Unmarshal(out, &ps); err != nil {
		t.Fatalf("ps: %v: %s", err, out)
	}
	return ps.Launches
}

// chaosViolations lists the marked processes of the test that break the
// invariant.
func chaosViolations(t *testing.T, e *faultEnv, prefix string, census []censusEntry) []string {
	byName := map[string]censusEntry{}
	for _, c := range census {
		byName[c.Name] = c
	}
	var bad []string
	for _, pid := range markedPids(prefix) {
		s, err := proc.Default.Stat(pid)
		if err != nil || s.State == 'Z' {
			continue
		}
		marker := markerOf(pid)
		name := nameOfMarker(marker)
		if s.State == 't' {
			bad = append(bad, fmt.Sprintf("pid %d (%s) is in a ptrace stop: %s", pid, name, describeTracer(pid)))
		}
		c, ok := byName[name]
		if !ok || (c.Status != "alive" && c.Status != "unverified") {
			bad = append(bad, fmt.Sprintf("pid %d (%s, marker %s) lives, but ps says %q", pid, name, marker, c.Status))
		}
		if rm := recordedMarker(e.state, name); rm != marker {
			bad = append(bad, fmt.Sprintf("pid %d (%s) carries marker %s, the record names %s", pid, name, marker, rm))
		}
	}
	// The log relays too: each one alive is its launch's recorded relay,
	// and that launch is alive (a gone launch's relay is ended).
	for _, pid := range relayPids(prefix) {
		if s, err := proc.Default.Stat(pid); err != nil || s.State == 'Z' {
			continue
		}
		marker := envOf(pid, logrelay.OfEnv)
		name := nameOfMarker(marker)
		c, ok := byName[name]
		if !ok || (c.Status != "alive" && c.Status != "unverified") {
			bad = append(bad, fmt.Sprintf("log relay pid %d (%s, marker %s) lives, but ps says %q", pid, name, marker, c.Status))
		}
		if rm, rp := recordedMarker(e.state, name), recordedRelay(e.state, name); rm != marker || rp != pid {
			bad = append(bad, fmt.Sprintf("log relay pid %d (%s) relays for marker %s, the record names marker %s and relay pid %d", pid, name, marker, rm, rp))
		}
	}
	return bad
}

// relayPids lists the log relays (childproof-log) of the launches named
// prefix-….
func relayPids(prefix string) []int {
	pids, _ := proc.Default.Pids()
	var out []int
	for _, pid := range pids {
		if strings.HasPrefix(envOf(pid, logrelay.OfEnv), statedir.Encode(prefix)) {
			out = append(out, pid)
		}
	}
	return out
}

// markedPids lists the processes whose environ carries a marker of a
// launch named prefix-….
func markedPids(prefix string) []int {
	pids, _ := proc.Default.Pids()
	var out []int
	for _, pid := range pids {
		if strings.HasPrefix(markerOf(pid), statedir.Encode(prefix)) {
			out = append(out, pid)
		}
	}
	return out
}

func markerOf(pid int) string { return envOf(pid, launcher.MarkerVar) }

// envOf returns the value of the (non-secret) variable name in pid's
// environ, or "".
func envOf(pid int, name string) string {
	b, err := proc.Default.EnvironRaw(pid)
	if err != nil {
		return ""
	}
	for _, kv := range bytes.Split(b, []byte{0}) {
		if v, ok := bytes.CutPrefix(kv, []byte(name+"=")); ok {
			return string(v)
		}
	}
	return ""
}

func nameOfMarker(m string) string {
	enc, _, _ := strings.Cut(m, ".")
	return statedir.NameOfStem(enc)
}

// recordedMarker reads the marker a launch's record file names (the
// record's second line, not authenticated: the test reads what it wrote).
func recordedMarker(state, name string) string { m, _ := recordedTree(state, name); return m }

// recordedRelay reads the pid of the log relay a launch's record names
// (0: none).
func recordedRelay(state, name string) int { _, r := recordedTree(state, name); return r }

// recordedTree reads a launch's recorded marker and relay pid.
func recordedTree(state, name string) (string, int) {
	f, err := os.Open(filepath.Join(state, "records", statedir.Encode(name)+".json"))
	if err != nil {
		return "", 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	var m struct {
		Marker string `json:"marker"`
		Relay  *struct {
			Pid int `json:"pid"`
		} `json:"relay"`
	}
	for i := 0; sc.Scan() && i < 3; i++ {
		if i == 1 {
			json.Unmarshal(sc.Bytes(), &m)
		}
	}
	if m.Relay == nil {
		return m.Marker, 0
	}
	return m.Marker, m.Relay.Pid
}

func describePids(pids []int) string {
	var out []string
	for _, pid := range pids {
		comm, _ := proc.Default.Comm(pid)
		out = append(out, fmt.Sprintf("%d %s (%s)", pid, comm, markerOf(pid)))
	}
	return strings.Join(out, ", ")
}

// describeTracer says who holds pid in its ptrace stop: the tracer's
// tid, its process and that process's comm, argv and parent, and where
// pid sleeps (wchan) — what a ptrace-stop violation needs to be found.
func describeTracer(pid int) string {
	field := func(path, key string) string {
		b, _ := os.ReadFile(path)
		for _, line := range strings.Split(string(b), "\n") {
			if v, ok := strings.CutPrefix(line, key+":"); ok {
				return strings.TrimSpace(v)
			}
		}
		return "?"
	}
	wchan, _ := os.ReadFile(fmt.Sprintf("/proc/%d/wchan", pid))
	comm, _ := proc.Default.Comm(pid)
	tracer := field(fmt.Sprintf("/proc/%d/status", pid), "TracerPid")
	tgid := field("/proc/"+tracer+"/status", "Tgid")
	tcomm, _ := os.ReadFile("/proc/" + tgid + "/comm")
	argv, _ := os.ReadFile("/proc/" + tgid + "/cmdline")
	return fmt.Sprintf("comm %s, wchan %s, tracer tid %s of pid %s (%s, argv %q, ppid %s, state %s)", comm, wchan, tracer, tgid,
		strings.TrimSpace(string(tcomm)), strings.Split(strings.TrimRight(string(argv), "\x00"), "\x00"),
		field("/proc/"+tgid+"/status", "PPid"), field("/proc/"+tgid+"/status", "State"))
}

// killMarked SIGKILLs, through a pidfd, what the test's launches left
// (their log relays too).
func killMarked(prefix string) {
	for _, pid := range append(markedPids(prefix), relayPids(prefix)...) {
		if fd, err := unix.PidfdOpen(pid, 0); err == nil {
			if strings.HasPrefix(markerOf(pid), statedir.Encode(prefix)) || strings.HasPrefix(envOf(pid, logrelay.OfEnv), statedir.Encode(prefix)) {
				unix.PidfdSendSignal(fd, unix.SIGKILL, nil, 0)
			}
			unix.Close(fd)
		}
	}
}
