package pidfd

import (
	"os/exec"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// TestWaitAny waits on a running process until it is killed, then returns
// at once for the exited one.
func TestWaitAny(t *testing.T) {
	cmd := exec.Command("sleep", "60")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	fd, err := unix.PidfdOpen(cmd.Process.Pid, 0)
	if err != nil {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatal(err)
	}
	defer unix.Close(fd)
	if !WaitAny([]int{fd, -1}, time.Millisecond) {
		t.Errorf("WaitAny on a running process = false, want true")
	}
	if Exited(fd) {
		t.Fatalf("sleep exited early")
	}
	cmd.Process.Kill()
	for WaitAny([]int{fd}, time.Minute) {
	}
	if !Exited(fd) {
		t.Errorf("WaitAny returned false before the process exited")
	}
	cmd.Wait()
	if WaitAny(nil, time.Minute) {
		t.Errorf("WaitAny(nil) = true, want false")
	}
}
