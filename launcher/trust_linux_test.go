package launcher

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/sys/unix"

	"github.com/childproof/childproof/launcher/proctree"
	"github.com/childproof/childproof/launcher/statedir"
	"github.com/childproof/childproof/outcome"
	"github.com/childproof/childproof/redact"
	"github.com/childproof/childproof/schema"
	"github.com/childproof/childproof/verify"
)

// wantStrict fails unless err is a state dir refusal (exit 2) naming path.
func wantStrict(t *testing.T, err error, path, why string) {
	t.Helper()
	var e *Error
	if !errors.As(err, &e) || e.Outcome != outcome.UntrustedStateDir {
		t.Fatalf("err = %v, want a state dir refusal (code 2)", err)
	}
	if !strings.Contains(e.Msg, path) || !strings.Contains(e.Msg, why) || e.Hint == "" {
		t.Errorf("refusal %q (hint %q) should name %s and say %q, with a fix", e.Msg, e.Hint, path, why)
	}
}

func TestStateDirStrictModes(t *testing.T) {
	t.Run("world-writable", func(t *testing.T) {
		dir := t.TempDir()
		os.Chmod(dir, 0o777)
		// OpenState's tighten used to fix this silently only when the
		// dir held nothing else; a planted entry kept it 0777 and accepted.
		os.WriteFile(filepath.Join(dir, "other"), nil, 0o600)
		_, err := OpenState(dir)
		wantStrict(t, err, dir, "writable by group or others")
	})
	t.Run("records writable", func(t *testing.T) {
		dir := t.TempDir()
		os.Mkdir(filepath.Join(dir, "records"), 0o777)
		os.Chmod(filepath.Join(dir, "records"), 0o777)
		_, err := OpenState(dir)
		wantStrict(t, err, filepath.Join(dir, "records"), "writable by group or others")
	})
	t.Run("logs symlink", func(t *testing.T) {
		dir := t.TempDir()
		os.Symlink(t.TempDir(), filepath.Join(dir, "logs"))
		_, err := OpenState(dir)
		wantStrict(t, err, filepath.Join(dir, "logs"), "symbolic link")
	})
	t.Run("key symlink", func(t *testing.T) {
		dir := t.TempDir()
		planted := filepath.Join(t.TempDir(), "known-key")
		os.WriteFile(planted, []byte(strings.Repeat("ab", 32)), 0o600)
		os.Symlink(planted, filepath.Join(dir, "key"))
		_, err := OpenState(dir)
		wantStrict(t, err, filepath.Join(dir, "key"), "symbolic link")
	})
	t.Run("other owner", func(t *testing.T) {
		if os.Geteuid() != 0 {
			t.Skip("needs root to chown")
		}
		dir := t.TempDir()
		os.Chown(dir, 65534, 65534)
		_, err := OpenState(dir)
		wantStrict(t, err, dir, "owned by uid 65534")
	})
}

func TestStateFileNotRegular(t *testing.T) {
	dir := t.TempDir()
	st, err := OpenState(dir)
	if err != nil {
		t.Fatal(err)
	}
	// A FIFO made ps hang forever; a link to /dev/zero ran it out of memory.
	if err := unix.Mkfifo(filepath.Join(dir, "records", "fifo.json"), 0o600); err != nil {
		t.Fatal(err)
	}
	os.Symlink("/dev/zero", filepath.Join(dir, "records", "zero.json"))
	big := filepath.Join(dir, "records", "big.json")
	os.WriteFile(big, make([]byte, statedir.MaxRecordSize+10), 0o600)
	done := make(chan []CensusEntry, 1)
	go func() {
		es, _ := Census(procDefault, st, true)
		done <- es
	}()
	select {
	case es := <-done:
		if len(es) != 3 {
			t.Fatalf("census = %+v, want 3 unreadable entries", es)
		}
		for _, e := range es {
			if e.Status != StatusUnknown || e.Error == "" {
				t.Errorf("%s: status %q error %q, want unknown with a reason", e.Name, e.Status, e.Error)
			}
		}
	case <-time.After(5 * time.Second):
		t.Fatal("census hangs on a FIFO in records/")
	}
}

func TestLogSymlinkRefused(t *testing.T) {
	f := newFixture(t)
	target := filepath.Join(t.TempDir(), "victim")
	os.WriteFile(target, []byte("untouched\n"), 0o644)
	os.Symlink(target, f.state.LogPath("ok"))
	_, err := f.start(t, f.spec("ok"), true)
	wantStrict(t, err, f.state.LogPath("ok"), "not a regular file")
	if b, _ := os.ReadFile(target); string(b) != "untouched\n" {
		t.Errorf("the symlink's target was written: %q", b)
	}
	noListener(t, f.port)
}

func TestKeyDurableAndCorrupt(t *testing.T) {
	dir := t.TempDir()
	st, err := OpenState(dir)
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, "key"))
	if err != nil || len(b) != 64 {
		t.Fatalf("key = %q, %v", b, err)
	}
	rec := &Record{Name: "a", Worker: verify.Fingerprint{Pid: 1 << 22}, Root: verify.Fingerprint{Pid: 1 << 22}}
	if err := st.Save(rec); err != nil {
		t.Fatal(err)
	}
	for _, corrupt := range []string{"", "not hex at all", strings.Repeat("ab", 31)} {
		os.WriteFile(filepath.Join(dir, "key"), []byte(corrupt), 0o600)
		st, err := OpenState(dir)
		if err != nil {
			t.Fatalf("key %q: OpenState = %v; ps and stop must keep working", corrupt, err)
		}
		if err := st.KeyErr(); err == nil || !strings.Contains(err.Error(), filepath.Join(dir, "key")) {
			t.Errorf("key %q: KeyErr = %v, want one naming the key's path", corrupt, err)
		}
		es, err := Census(procDefault, st, true)
		if err != nil || len(es) != 1 || es[0].Status != StatusUntrusted {
			t.Errorf("key %q: census = %+v, %v; want the record shown untrusted", corrupt, es, err)
		}
		_, err = Start(context.Background(), &schema.Launch{Name: "k", Command: []string{"true"}}, Options{State: st, Detach: true})
		if e := (*Error)(nil); !errors.As(err, &e) || e.Outcome != outcome.Usage {
			t.Errorf("key %q: Start = %v, want the key error", corrupt, err)
		}
	}
}

// stranger starts a process this test owns but no launch recorded.
func stranger(t *testing.T) (*exec.Cmd, verify.Fingerprint) {
	t.Helper()
	c := exec.Command("sleep", "60")
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Process.Kill(); c.Wait() })
	var fp verify.Fingerprint
	var err error
	for range 100 {
		if fp, err = verify.TakeFingerprint(procDefault, c.Process.Pid); err == nil && fp.Comm == "sleep" {
			return c, fp
		}
		time.Sleep(time.Millisecond)
	}
	t.Fatalf("fingerprint: %v", err)
	return nil, fp
}

func alive(c *exec.Cmd) bool { return c.Process.Signal(syscall.Signal(0)) == nil }

func TestForgedRecordRefused(t *testing.T) {
	dir := t.TempDir()
	st, err := OpenState(dir)
	if err != nil {
		t.Fatal(err)
	}
	c, fp := stranger(t)
	victim := filepath.Join(t.TempDir(), "victim")
	os.WriteFile(victim, nil, 0o600)
	forged := Record{Name: "forged", Root: fp, Worker: fp, Pgid: fp.Pid, Cgroup: victim}
	write := func(r Record) {
		b, _ := json.Marshal(r)
		os.WriteFile(st.Files.Record(r.Name), b, 0o600)
	}
	// 1. No MAC at all: what anyone who could write a record wrote.
	write(forged)
	// 2. A MAC from a sealed record of ours, then the pid edited.
	own := Record{Name: "edited", Root: verify.Fingerprint{Pid: 1 << 22}, Worker: verify.Fingerprint{Pid: 1 << 22}}
	if err := st.Save(&own); err != nil {
		t.Fatal(err)
	}
	edited := own
	edited.Root, edited.Worker, edited.Pgid = fp, fp, fp.Pid
	write(edited)
	// 3. A record sealed under another state dir's key.
	other, _ := OpenState(t.TempDir())
	moved := forged
	moved.Name = "moved"
	other.Save(&moved)
	b, _ := os.ReadFile(other.Files.Record("moved"))
	os.WriteFile(st.Files.Record("moved"), b, 0o600)

	for _, name := range []string{"forged", "edited", "moved"} {
		_, err := st.Load(name)
		e := wantCode(t, err, outcome.UntrustedRecord, verify.KindUntrustedRecord)
		if !errors.Is(err, ErrUntrusted) || (e.Report == nil || !e.Report.Has(verify.KindUntrustedRecord)) {
			t.Errorf("%s: Load = %v, want untrusted-record", name, err)
		}
	}
	es, err := Census(procDefault, st, true)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range es {
		if e.Status != StatusUntrusted {
			t.Errorf("census %s = %q, want untrusted", e.Name, e.Status)
		}
	}
	if !alive(c) {
		t.Fatal("the stranger was signalled")
	}
	if _, err := os.Stat(victim); err != nil {
		t.Fatal("the file a forged record named as its cgroup was removed")
	}
}

func TestRecordCgroupOnlyOurShape(t *testing.T) {
	st, err := OpenState(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	victim := filepath.Join(t.TempDir(), "childproof-x-0123abcd")
	os.Mkdir(victim, 0o755)
	gone := verify.Fingerprint{Pid: 1 << 22, StartTime: 1}
	for _, cg := range []string{victim, "/sys/fs/cgroup/../../" + victim, "/etc/passwd"} {
		rec := &Record{Name: "x", Root: gone, Worker: gone, Cgroup: cg}
		if _, err := StopRecord(context.Background(), procDefault, st, rec, time.Second); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := os.Stat(victim); err != nil {
		t.Error("stop removed a directory outside the cgroup hierarchy named in a record")
	}
	if _, err := os.Stat("/etc/passwd"); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		base, name string
		ok         bool
	}{
		{"childproof-x-0123abcd", "x", true},
		{"childproof-x-0123ABCD", "x", false},
		{"childproof-x-0123abc", "x", false},
		{"childproof-y-0123abcd", "x", false},
		{"childproof-x-0123abcd.x", "x", false},
	} {
		if got := proctree.IsCgroupName(tc.base, tc.name); got != tc.ok {
			t.Errorf("proctree.IsCgroupName(%q, %q) = %v", tc.base, tc.name, got)
		}
	}
}

func TestMissingPidfsInodeIsMismatch(t *testing.T) {
	_, fp := stranger(t)
	if fp.PidfsInode == 0 {
		t.Skip("no pidfs inode on this kernel")
	}
	noInode := fp
	noInode.PidfsInode = 0
	if l := noInode.Check(procDefault); l != verify.Reused {
		t.Errorf("a recorded fingerprint without pidfs inode is %s, want pid reused", l)
	}
	if l := fp.Check(procDefault); l != verify.Alive {
		t.Errorf("the full fingerprint is %s, want alive", l)
	}
}

// TestForegroundSignalsSkipStrangerInGroup: a process that moves itself
// into a foreground launch's process group is not signalled when the
// launch has a cgroup.
func TestForegroundSignalsSkipStrangerInGroup(t *testing.T) {
	if os.Geteuid() != 0 || proctree.Cgroup2Root() == "" || os.Getenv("CHILDPROOF_NO_CGROUP") != "" {
		t.Skip("needs root and cgroup v2 (and CHILDPROOF_NO_CGROUP unset)")
	}
	f := newFixture(t)
	la, err := Start(context.Background(), f.spec("grp"), Options{State: f.state})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { la.Stop(context.Background()) })
	if la.tree.Cgroup == "" {
		t.Fatal("no cgroup although root on cgroup v2")
	}
	c := exec.Command("sleep", "60")
	c.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pgid: la.tree.Pgid}
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { c.Process.Kill(); c.Wait() }()
	la.Signal(syscall.SIGTERM)
	select {
	case <-la.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("the worker did not stop on SIGTERM")
	}
	// A signal to the group was sent before the worker could die of it:
	// by now it is pending on the stranger, or the stranger is dead (a
	// zombie: our child, not waited for). No time to wait out.
	if why := signalledOrDead(c.Process.Pid); why != "" {
		t.Errorf("a process that joined the launch's process group was signalled: %s", why)
	}
}

// signalledOrDead says why pid counts as signalled: dead (a zombie or
// gone), or SIGTERM/SIGKILL pending; "" when neither.
func signalledOrDead(pid int) string {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return "gone"
	}
	if i := strings.LastIndexByte(string(stat), ')'); i > 0 && i+2 < len(stat) && (stat[i+2] == 'Z' || stat[i+2] == 'X') {
		return "dead"
	}
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return "gone"
	}
	for _, line := range strings.Split(string(status), "\n") {
		k, v, _ := strings.Cut(line, ":")
		if k != "SigPnd" && k != "ShdPnd" {
			continue
		}
		mask, err := strconv.ParseUint(strings.TrimSpace(v), 16, 64)
		if err == nil && mask&(1<<(syscall.SIGTERM-1)|1<<(syscall.SIGKILL-1)) != 0 {
			return k + " " + strings.TrimSpace(v)
		}
	}
	return ""
}

// TestArgvSecretMasked: an argv element from env() is stored and reported
// as <NAME>, and a worker printing a secret before it dies has it masked
// in the error and the report's last lines.
func TestArgvSecretMasked(t *testing.T) {
	f := newFixture(t)
	l := f.spec("argv")
	l.Command = append(f.raceServe(), "--api-key", secret, "--pin", "42") // serve ignores them
	l.SecretValues = []redact.Secret{{Name: "API_KEY", Value: secret}, {Name: "PIN", Value: "42"}}
	l.Sensitive = map[string]bool{"command[5]": true, "command[7]": true}
	la, err := f.start(t, l, true)
	if err != nil {
		t.Fatal(err)
	}
	rec, err := f.state.Load("argv")
	if err != nil {
		t.Fatal(err)
	}
	want := append(append([]string{}, l.Command[:5]...), "<API_KEY>", "--pin", "<PIN>")
	if diff := cmp.Diff(want, rec.Argv); diff != "" {
		t.Errorf("recorded argv (-want +got):\n%s", diff)
	}
	if len(rec.Secrets) == 0 {
		t.Error("the record keeps no secret digests")
	}
	m := f.state.Secrets(Known{Record: rec})
	if got := m.Arg(secret); got != "<API_KEY>" {
		t.Errorf("a masker from the record gives %q for the secret", got)
	}
	// Where each secret occurs is stored with its digest, not re-derived.
	occurs := map[string][]string{}
	for _, sec := range rec.Secrets {
		occurs[sec.Name] = append(occurs[sec.Name], sec.Occurs...)
	}
	if !slices.Contains(occurs["API_KEY"], "argv[5]") || !slices.Contains(occurs["PIN"], "argv[7]") {
		t.Errorf("recorded occurrences %v, want argv[5] for API_KEY and argv[7] for PIN", occurs)
	}
	assertNoSecret(t, f.state.Dir)
	la.Stop(context.Background())

	d := f.spec("dies")
	d.Command = []string{filepath.Join(f.bin, "mock-srv"), "helper", "die", "3", "key is " + secret}
	d.Env = map[string]string{"MOCK_LLM_KEY": secret}
	d.Secret = []string{"MOCK_LLM_KEY"}
	_, err = f.start(t, d, false)
	e := wantCode(t, err, outcome.Exited, verify.KindExited)
	if strings.Contains(err.Error(), secret) || strings.Contains(strings.Join(e.Report.Tail, "\n"), secret) {
		t.Errorf("the worker's last lines leak the secret: %v / %q", err, e.Report.Tail)
	}
	if !strings.Contains(err.Error(), "key is <MOCK_LLM_KEY>") {
		t.Errorf("error = %v, want the masked last line", err)
	}
}

// TestNoInheritedDescriptors: a descriptor the caller left without
// close-on-exec (a pipe) does not reach the worker: the pipe's reader sees
// EOF once the caller closes its end, although a detached worker runs.
func TestNoInheritedDescriptors(t *testing.T) {
	f := newFixture(t)
	var p [2]int
	if err := unix.Pipe(p[:]); err != nil { // no O_CLOEXEC: as a shell leaves it
		t.Fatal(err)
	}
	r := os.NewFile(uintptr(p[0]), "r")
	defer r.Close()
	unix.CloseOnExec(p[0])
	la, err := f.start(t, f.spec("fds"), true)
	if err != nil {
		unix.Close(p[1])
		t.Fatal(err)
	}
	fds, _ := os.ReadDir(procDefault.Path(la.Pid(), "fd"))
	unix.Close(p[1])
	done := make(chan error, 1)
	go func() {
		var b [1]byte
		_, err := r.Read(b[:])
		done <- err
	}()
	select {
	case err := <-done:
		if err == nil {
			t.Error("read data from the pipe")
		}
	case <-time.After(3 * time.Second):
		t.Fatalf("the worker holds the caller's pipe (its fds: %d entries)", len(fds))
	}
}

// TestEmptyCgroupsSwept: ps (Census) removes the empty cgroups a launch
// left when it ended without childproof (a SIGKILLed supervisor), and a
// pid-reuse stop removes the record's.
func TestEmptyCgroupsSwept(t *testing.T) {
	if os.Geteuid() != 0 || proctree.Cgroup2Root() == "" || os.Getenv("CHILDPROOF_NO_CGROUP") != "" {
		t.Skip("needs root and cgroup v2 (and CHILDPROOF_NO_CGROUP unset)")
	}
	st, err := OpenState(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	mk := func() string {
		n++
		dir := filepath.Join(proctree.Cgroup2Root(), fmt.Sprintf("childproof-sweep-test-%08x", os.Getpid()<<4+n))
		if err := os.Mkdir(dir, 0o755); err != nil {
			t.Skipf("cannot create a cgroup here: %v", err)
		}
		t.Cleanup(func() { os.Remove(dir) })
		return dir
	}
	own, sibling := mk(), mk()
	gone := verify.Fingerprint{Pid: 1 << 22, StartTime: 1}
	if err := st.Save(&Record{Name: "sweep-test", Root: gone, Worker: gone, Cgroup: own}); err != nil {
		t.Fatal(err)
	}
	if _, err := Census(procDefault, st, true); err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{own, sibling} {
		if _, err := os.Stat(d); err == nil {
			t.Errorf("ps left the empty cgroup %s", d)
		}
	}
	_, fp := stranger(t)
	reused := fp
	reused.StartTime++ // the recorded worker is gone, another process has its pid
	cg := mk()
	if _, err := StopRecord(context.Background(), procDefault, st, &Record{Name: "sweep-test", Root: reused, Worker: reused, Cgroup: cg}, time.Second); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(cg); err == nil {
		t.Errorf("a pid-reuse stop left the empty cgroup %s", cg)
	}
}
