package launcher

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/childproof/childproof/outcome"
	"github.com/childproof/childproof/verify"
	"golang.org/x/sys/unix"
)

// TestSurplusSignalNamed is story 5: a Go test that signals the server it
// started during its start (a surplus SIGTERM) gets an exit-5 error that
// names the signal and its sender — this very test process.
func TestSurplusSignalNamed(t *testing.T) {
	f := newFixture(t)
	l := f.spec("surplus")
	pidfile := filepath.Join(t.TempDir(), "pid")
	l.Command = []string{"/bin/sh", "-c", "echo $$ > " + pidfile + "; exec sleep 30"}
	l.Worker.Comm = "sleep"
	l.Ready.HTTP = ""
	l.Ready.Timeout = 20 * time.Second
	go func() {
		for end := time.Now().Add(10 * time.Second); time.Now().Before(end); time.Sleep(2 * time.Millisecond) {
			b, err := os.ReadFile(pidfile)
			if err != nil || !strings.HasSuffix(string(b), "\n") {
				continue
			}
			pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
			if comm, _ := os.ReadFile(fmt.Sprintf("/proc/%d/comm", pid)); string(comm) == "sleep\n" {
				unix.Kill(pid, unix.SIGTERM)
				return
			}
		}
	}()
	_, err := f.start(t, l, false)
	e := wantCode(t, err, outcome.Exited, verify.KindExited)
	want := fmt.Sprintf("SIGTERM from pid %d (", os.Getpid())
	if !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "that is this process itself") {
		t.Errorf("error does not name the sender (%q, this process): %v", want, err)
	}
	if len(e.Report.Signals) != 1 {
		t.Fatalf("report signals = %+v, want one", e.Report.Signals)
	}
	s := e.Report.Signals[0]
	if s.Signal != "SIGTERM" || s.FromPid != os.Getpid() || s.FromUID != os.Getuid() || s.Kernel != "" || s.ToPid == 0 {
		t.Errorf("signal = %+v, want SIGTERM from pid %d uid %d", s, os.Getpid(), os.Getuid())
	}
	noListener(t, f.port)
}

// TestKernelSignalNamed: a fault's SIGSEGV says that the kernel sent it.
func TestKernelSignalNamed(t *testing.T) {
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 is not installed: no program that faults on purpose")
	}
	f := newFixture(t)
	l := f.spec("faults")
	l.Command = []string{py, "-c", "import ctypes; ctypes.string_at(0)"}
	l.Worker.Comm = "python3"
	l.Ready.HTTP = ""
	_, err = f.start(t, l, false)
	e := wantCode(t, err, outcome.Exited, verify.KindExited)
	if len(e.Report.Signals) == 0 || e.Report.Signals[0].Signal != "SIGSEGV" || e.Report.Signals[0].Kernel != "fault" {
		t.Fatalf("report signals = %+v, want SIGSEGV from the kernel (fault)", e.Report.Signals)
	}
	if !strings.Contains(err.Error(), "SIGSEGV from the kernel (a fault of the process itself)") {
		t.Errorf("error does not say the kernel sent it: %v", err)
	}
}

// TestOOMKilledFromKernelLog: the OOM killer's SIGKILL (which no tracer
// sees) is read from the kernel log's record of the pid it killed.
func TestOOMKilledFromKernelLog(t *testing.T) {
	recs := []string{
		"6,1000,5,-;eth0: link up\n",
		"3,1001,6,-;Out of memory: Killed process 4321 (python3) total-vm:1048576kB, anon-rss:900000kB, file-rss:0kB\n",
		"3,1002,7,-;Memory cgroup out of memory: Killed process 777 (java) total-vm:10kB\n",
	}
	tests := []struct {
		pids []int
		want int
	}{
		{[]int{4321}, 4321}, {[]int{1, 777}, 777}, {[]int{432}, 0}, {[]int{43210}, 0}, {nil, 0},
	}
	for _, tt := range tests {
		if got := oomKilled(recs, tt.pids...); got != tt.want {
			t.Errorf("oomKilled(%v) = %d, want %d", tt.pids, got, tt.want)
		}
	}
	if os.Geteuid() == 0 && kmsgRecords() == nil {
		t.Error("root reads no kernel log record from /dev/kmsg")
	}
}
