package pidfd

import (
	"context"
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

// TestAwait waits on a running process until its context ends, then
// until it is killed; Wait gives up at its timeout.
func TestAwait(t *testing.T) {
	cmd := exec.Command("sleep", "60")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Wait()
	defer cmd.Process.Kill()
	fd, err := unix.PidfdOpen(cmd.Process.Pid, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(fd)
	ctx, cancel := context.WithCancel(context.Background())
	go cancel()
	if Await(ctx, fd) {
		t.Errorf("Await with its context ended = true for a running process")
	}
	if Wait(context.Background(), fd, 10*time.Millisecond) {
		t.Errorf("Wait = true for a running process")
	}
	if Await(context.Background(), -1) || Wait(context.Background(), -1, time.Millisecond) {
		t.Errorf("a wait on no pidfd = true")
	}
	go cmd.Process.Kill()
	if !Await(context.Background(), fd) {
		t.Errorf("Await = false, want true once the process exited")
	}
	if !Wait(ctx, fd, 0) {
		t.Errorf("Wait on an exited process = false")
	}
}
