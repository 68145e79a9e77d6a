package testsupport

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// ForkedSubshell starts bash with two children: a subshell it forked that
// never execs (it blocks opening a fifo nobody writes) and a sleep that
// exec'd. It returns once sleep has exec'd, with bash's command and the
// two children's pids; the three are killed, by pid, when t ends.
func ForkedSubshell(t testing.TB) (bash *exec.Cmd, sub, sleep int) {
	t.Helper()
	dir := t.TempDir()
	if err := exec.Command("mkfifo", filepath.Join(dir, "fifo")).Run(); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	bash = exec.Command("bash", "-c", `(echo $BASHPID > sub; read -r _ < fifo) & sleep 300 & echo $! > sleep; wait`)
	bash.Dir = dir
	if err := bash.Start(); err != nil {
		t.Fatal(err)
	}
	var pids []int
	t.Cleanup(func() {
		for _, p := range pids {
			syscall.Kill(p, syscall.SIGKILL) // the script's own children
		}
		bash.Process.Kill()
		bash.Wait()
	})
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
	sub, sleep = pidIn("sub"), pidIn("sleep")
	pids = append(pids, sub, sleep)
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		// (Until it has exec'd it is a fork of bash: the same image.)
		if exe, _ := os.Readlink("/proc/" + strconv.Itoa(sleep) + "/exe"); strings.HasSuffix(exe, "/sleep") {
			return bash, sub, sleep
		}
		if time.Now().After(deadline) {
			t.Fatal("sleep did not exec")
		}
	}
}
