package proc

import (
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/sys/unix"
)

// TestHold: an FS holding a process's records reads what its paths read
// (stat afresh at each read), reads none of them once the process is
// reaped (ErrGone, never another's that takes the pid), and reads by
// path again after release.
func TestHold(t *testing.T) {
	cmd := startListener(t, "CHILDPROOF_PROBE=held")
	pid := cmd.Process.Pid
	fd, err := unix.PidfdOpen(pid, 0)
	must(t, err)
	defer unix.Close(fd)
	p := Default
	h, release := p.HoldWhile(pid, fd)
	defer release()
	if h.held == nil {
		t.Fatal("HoldWhile of a live process holds nothing")
	}

	byPath, err := p.Stat(pid)
	must(t, err)
	got, err := h.Stat(pid)
	must(t, err)
	if got.Pid != pid || got.StartTime != byPath.StartTime || got.Comm != byPath.Comm || got.EnvStart != byPath.EnvStart {
		t.Errorf("held Stat = %+v, by path %+v", got, byPath)
	}
	for _, name := range []string{"environ", "cmdline", "comm"} {
		a, err := p.read(pid, name)
		must(t, err)
		b, err := h.read(pid, name)
		must(t, err)
		if !slices.Equal(a, b) {
			t.Errorf("held %s = %q, by path %q", name, b, a)
		}
	}
	exe, err := h.Exe(pid)
	must(t, err)
	if self, _ := os.Executable(); exe != self {
		t.Errorf("held Exe = %q, want %q", exe, self)
	}
	a, err := p.SocketInodes(pid)
	must(t, err)
	b, err := h.SocketInodes(pid)
	must(t, err)
	if d := cmp.Diff(a, b); d != "" || len(a) == 0 {
		t.Errorf("held SocketInodes (-path +held):\n%s", d)
	}
	// Another pid reads by path.
	if st, err := h.Stat(os.Getpid()); err != nil || st.Pid != os.Getpid() {
		t.Errorf("held FS's Stat of another pid = %+v, %v", st, err)
	}

	// Each read is a fresh record: the helper's state moves from
	// sleeping to stopped and back, as the held stat shows.
	waitState := func(want byte) {
		t.Helper()
		deadline := time.Now().Add(10 * time.Second)
		for {
			st, err := h.Stat(pid)
			must(t, err)
			if st.State == want {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("held stat state %c, want %c", st.State, want)
			}
			time.Sleep(time.Millisecond)
		}
	}
	must(t, cmd.Process.Signal(unix.SIGSTOP))
	waitState('T')
	must(t, cmd.Process.Signal(unix.SIGCONT))
	waitState('S')

	// Reaped: nothing held reads, and never by the pid's path.
	cmd.Process.Kill()
	cmd.Wait()
	if _, err := h.Stat(pid); !errors.Is(err, ErrGone) {
		t.Errorf("held Stat of a reaped process: %v, want ErrGone", err)
	}
	if _, err := h.EnvironRaw(pid); !errors.Is(err, ErrGone) {
		t.Errorf("held environ of a reaped process: %v, want ErrGone", err)
	}
	if _, err := h.Exe(pid); !errors.Is(err, ErrGone) {
		t.Errorf("held Exe of a reaped process: %v, want ErrGone", err)
	}
	if _, err := h.SocketInodes(pid); !errors.Is(err, ErrGone) {
		t.Errorf("held SocketInodes of a reaped process: %v, want ErrGone", err)
	}
	if q, rel := p.HoldWhile(pid, fd); q.held != nil {
		rel()
		t.Error("HoldWhile of an exited pidfd holds records")
	}

	// Released: reads go by path.
	release()
	release()
	if st, err := h.Stat(os.Getpid()); err != nil || st.Pid != os.Getpid() {
		t.Errorf("released FS's Stat = %+v, %v", st, err)
	}
	if _, err := h.Stat(pid); !errors.Is(err, ErrGone) {
		t.Errorf("released FS's Stat of a reaped process: %v, want ErrGone", err)
	}
}

// TestSocketFD: SocketFD names the fd HasSocket finds the socket at, and
// HasSocketAt tells in one link read whether that fd is the socket, held
// or by path.
func TestSocketFD(t *testing.T) {
	pid := startListener(t).Process.Pid
	inos, err := Default.SocketInodes(pid)
	must(t, err)
	if len(inos) == 0 {
		t.Fatal("helper holds no socket")
	}
	ino := inos[len(inos)-1]
	fd, err := Default.SocketFD(pid, ino)
	must(t, err)
	if fd == "" {
		t.Fatalf("SocketFD(%d, %d) found none", pid, ino)
	}
	if t2, _ := os.Readlink(Default.Path(pid, "fd", fd)); t2 != "socket:["+strconv.FormatUint(ino, 10)+"]" {
		t.Errorf("fd %s links to %q", fd, t2)
	}
	pfd, err := unix.PidfdOpen(pid, 0)
	must(t, err)
	defer unix.Close(pfd)
	h, release := Default.HoldWhile(pid, pfd)
	defer release()
	for _, p := range []FS{Default, h} {
		if !p.HasSocketAt(pid, fd, ino) {
			t.Errorf("HasSocketAt(%d, %s, %d) = false (held %v)", pid, fd, ino, p.held != nil)
		}
		if p.HasSocketAt(pid, fd, ino+1) || p.HasSocketAt(pid, "0", ino) || p.HasSocketAt(pid, "99999", ino) {
			t.Errorf("HasSocketAt says another fd or socket is it (held %v)", p.held != nil)
		}
	}
	if fd, err := Default.SocketFD(pid, ino+1<<40); fd != "" || err != nil {
		t.Errorf("SocketFD of a socket it does not hold = %q, %v", fd, err)
	}
}

// startListener starts this test binary as the listen helper (with env
// added) and waits for the port it prints; the test's cleanup kills and
// reaps it.
func startListener(t *testing.T, env ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append([]string{"PROC_TEST_HELPER=listen"}, env...)
	out, err := cmd.StdoutPipe()
	must(t, err)
	must(t, cmd.Start())
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	if n, _ := out.Read(make([]byte, 16)); n == 0 {
		t.Fatal("helper printed no port")
	}
	return cmd
}

// TestTempRecords: the records read into reused buffers (Cmdline, Comm,
// Stat) read what their paths hold, held or not, one after the other
// and after a record (a 6000-byte cmdline) larger than the buffers.
func TestTempRecords(t *testing.T) {
	long := strings.Repeat("a", 6000)
	// The shell waits in its read of a pipe held open here: no child.
	r, w, err := os.Pipe()
	must(t, err)
	defer w.Close()
	cmd := exec.Command("/bin/sh", "-c", "read x", "sh", long)
	cmd.Stdin = r
	must(t, cmd.Start())
	r.Close()
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	pid := cmd.Process.Pid
	want := []string{"/bin/sh", "-c", "read x", "sh", long}
	h, release := Default.Hold(pid)
	defer release()
	for _, p := range []FS{Default, h, Default, h} {
		args, err := p.Cmdline(pid)
		must(t, err)
		comm, err := p.Comm(pid)
		must(t, err)
		st, err := p.Stat(pid)
		must(t, err)
		if !slices.Equal(args, want) {
			t.Errorf("Cmdline = %.40q…", args)
		}
		if raw, _ := os.ReadFile(Default.Path(pid, "comm")); comm != strings.TrimSuffix(string(raw), "\n") || st.Comm != comm || st.Pid != pid {
			t.Errorf("Comm %q, Stat %+v; comm file %q", comm, st, raw)
		}
	}
}

// TestScanFile: ScanFile gives f what ReadFile reads, for a file larger
// than its reused buffer and for a small one after it, and its error
// for a missing file without calling f.
func TestScanFile(t *testing.T) {
	dir := t.TempDir()
	big, small := dir+"/big", dir+"/small"
	must(t, os.WriteFile(big, []byte(strings.Repeat("0123456789\n", 700)), 0o600))
	must(t, os.WriteFile(small, []byte("0::/a\n"), 0o600))
	for _, path := range []string{big, small, big, small} {
		want, err := ReadFile(path)
		must(t, err)
		var got []byte
		must(t, ScanFile(path, func(b []byte) { got = slices.Clone(b) }))
		if !slices.Equal(got, want) {
			t.Errorf("ScanFile(%s) gave %d bytes, ReadFile %d", path, len(got), len(want))
		}
	}
	called := false
	if err := ScanFile(dir+"/none", func([]byte) { called = true }); !errors.Is(err, fs.ErrNotExist) || called {
		t.Errorf("ScanFile of a missing file: %v, f called %v", err, called)
	}
}
