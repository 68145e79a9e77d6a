package watchdog

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/childproof/childproof/internal/pidfd"
)

// TestMain runs the starter of TestStarterKilledSharedWatchdog when
// asked (WATCHDOG_TEST_STARTER set).
func TestMain(m *testing.M) {
	if os.Getenv("WATCHDOG_TEST_STARTER") == "1" {
		starter()
		return
	}
	os.Exit(m.Run())
}

// starter registers three launches with one watchdog, releases the
// second, starts a sleep carrying each one's marker (in a session of its
// own: no parent-death signal, as a worker below a wrapper), prints their
// pids and waits to be killed.
func starter() {
	var pids []string
	for i, marker := range []string{"A", "B", "C"} {
		entry := "WATCHDOG_TEST_MARKER=" + marker + strconv.Itoa(os.Getpid())
		d := Start(entry, "")
		if d == nil {
			fmt.Println("no watchdog")
			os.Exit(1)
		}
		if i == 1 {
			d.Release()
		}
		cmd := exec.Command("sleep", "60")
		cmd.Env = []string{entry}
		cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
		if err := cmd.Start(); err != nil {
			fmt.Println(err)
			os.Exit(1)
		}
		pids = append(pids, strconv.Itoa(cmd.Process.Pid))
	}
	fmt.Println(strings.Join(pids, " "))
	select {}
}

// TestStarterKilledSharedWatchdog: one watchdog serves every launch of
// its process; SIGKILL of the process kills what carries the marker of a
// launch still registered, and leaves a released launch's processes
// alone.
func TestStarterKilledSharedWatchdog(t *testing.T) {
	if _, err := exec.LookPath("sleep"); err != nil {
		t.Skip("no sleep on PATH")
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(self, "-test.run=^$")
	cmd.Env = append(os.Environ(), "WATCHDOG_TEST_STARTER=1")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { cmd.Process.Kill(); cmd.Wait() }() // our own starter
	line, err := bufio.NewReader(out).ReadString('\n')
	fields := strings.Fields(line)
	if err != nil || len(fields) != 3 {
		t.Fatalf("starter said %q (%v)", line, err)
	}
	var fds []int
	for _, f := range fields {
		pid, _ := strconv.Atoi(f)
		fd, err := unix.PidfdOpen(pid, 0)
		if err != nil {
			t.Fatalf("sleep %d: %v", pid, err)
		}
		defer unix.Close(fd)
		defer unix.PidfdSendSignal(fd, unix.SIGKILL, nil, 0) // a sleep this test had started
		fds = append(fds, fd)
	}
	cmd.Process.Kill()
	cmd.Wait()
	for _, i := range []int{0, 2} {
		if !pidfd.Wait(context.Background(), fds[i], 30*time.Second) {
			t.Errorf("launch %d's process (pid %s) outlived its starter's SIGKILL", i, fields[i])
		}
	}
	if pidfd.Exited(fds[1]) {
		t.Errorf("the released launch's process (pid %s) was killed", fields[1])
	}
}

// TestLingerAndSettle: the watchdog outlives its last release (a next
// launch registers with it), and Settle lets it go at once.
func TestLingerAndSettle(t *testing.T) {
	d := Start("WATCHDOG_TEST_MARKER=linger", "")
	if d == nil {
		t.Fatal("no watchdog")
	}
	d.Release()
	shared.mu.Lock()
	running := shared.w != nil
	shared.mu.Unlock()
	if !running {
		t.Error("the watchdog did not linger after its last release")
	}
	if !Settle(10 * time.Second) {
		t.Error("the watchdog still runs after Settle")
	}
	d.Release() // a second release is a no-op
}

// TestReleasedAtIdleClose: a release not yet written (it goes with the
// next registration) reaches the watchdog before it is let go: a process
// carrying the released launch's marker outlives the watchdog's exit.
func TestReleasedAtIdleClose(t *testing.T) {
	if _, err := exec.LookPath("sleep"); err != nil {
		t.Skip("no sleep on PATH")
	}
	entry := "WATCHDOG_TEST_MARKER=idleclose" + strconv.Itoa(os.Getpid())
	d := Start(entry, "")
	if d == nil {
		t.Fatal("no watchdog")
	}
	cmd := exec.Command("sleep", "60")
	cmd.Env = []string{entry}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { cmd.Process.Kill(); cmd.Wait() }() // our own sleep
	fd, err := unix.PidfdOpen(cmd.Process.Pid, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(fd)
	d.Release()
	if !Settle(30 * time.Second) {
		t.Fatal("the watchdog still runs after Settle")
	}
	if pidfd.Exited(fd) {
		t.Error("the released launch's process was killed when the watchdog was let go")
	}
}

// TestLingerEnds: released and left alone, the watchdog exits by itself
// once linger has passed since the last release, without Settle.
func TestLingerEnds(t *testing.T) {
	d := Start("WATCHDOG_TEST_MARKER=lingerends", "")
	if d == nil {
		t.Fatal("no watchdog")
	}
	shared.mu.Lock()
	exited := shared.exited
	shared.mu.Unlock()
	d.Release()
	select {
	case <-exited:
	case <-time.After(linger + 30*time.Second):
		t.Fatalf("the watchdog still runs %s after its last release", linger+30*time.Second)
	}
	shared.mu.Lock()
	running := shared.w != nil
	shared.mu.Unlock()
	if running {
		t.Error("the watchdog exited but is still taken for running")
	}
}
