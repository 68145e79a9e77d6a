package proctree

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/childproof/childproof/proc"
	"github.com/childproof/childproof/verify"
)

// ForkedFrom finds a real subshell (bash forked, no exec) of a process,
// and neither a child that exec'd sleep nor the test itself.
func TestForkedFrom(t *testing.T) {
	if b, err := os.ReadFile("/proc/sys/kernel/randomize_va_space"); err != nil || strings.TrimSpace(string(b)) == "0" {
		t.Skip("address-space randomization is off: ForkedFrom lists nothing")
	}
	dir := t.TempDir()
	if err := exec.Command("mkfifo", filepath.Join(dir, "fifo")).Run(); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	// (The subshell blocks opening a fifo nobody writes.)
	cmd := exec.Command("bash", "-c", `(echo $BASHPID > sub; read -r _ < fifo) & sleep 300 & echo $! > sleep; wait`)
	cmd.Dir = dir
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var pids []int
	t.Cleanup(func() {
		for _, p := range pids {
			syscall.Kill(p, syscall.SIGKILL) // the script's own children
		}
		cmd.Process.Kill()
		cmd.Wait()
	})
	p := proc.Default
	pidIn := func(name string) int {
		for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
			b, _ := os.ReadFile(filepath.Join(dir, name))
			if n, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil && n > 0 {
				return n
			}
		}
		t.Fatalf("no pid in %s", name)
		return 0
	}
	sub, sleep := pidIn("sub"), pidIn("sleep")
	pids = append(pids, sub, sleep)
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if exe, _ := p.Exe(sleep); strings.HasSuffix(exe, "/sleep") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("sleep did not exec")
		}
	}
	st, err := p.Stat(cmd.Process.Pid)
	if err != nil {
		t.Fatal(err)
	}
	exe, _ := p.Exe(cmd.Process.Pid)
	got := ForkedFrom(p, exe, verify.ExecArea(st), st.StartTime)
	if !slices.Contains(got, sub) || !slices.Contains(got, cmd.Process.Pid) {
		t.Errorf("ForkedFrom = %v, want the subshell %d and bash %d", got, sub, cmd.Process.Pid)
	}
	if slices.Contains(got, sleep) || slices.Contains(got, os.Getpid()) {
		t.Errorf("ForkedFrom = %v: lists sleep (%d, exec'd) or the test", got, sleep)
	}
	if got := ForkedFrom(p, exe, verify.ExecArea(st), st.StartTime+1<<40); len(got) != 0 {
		t.Errorf("ForkedFrom(started later than all) = %v, want none", got)
	}
	if got := ForkedFrom(p, exe, "", st.StartTime); got != nil {
		t.Errorf("ForkedFrom(no area) = %v, want none", got)
	}
}
