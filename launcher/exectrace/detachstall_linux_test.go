package exectrace

import (
	"os/exec"
	"syscall"
	"testing"

	"github.com/childproof/childproof/proc"
)

// TestDetachLostTracee: an entry for a tracee the tracer will never hear
// from again (its fork event handled after its exit was consumed: a
// fresh entry for a pid that is gone) does not hold the detach until its
// timeout.
func TestDetachLostTracee(t *testing.T) {
	cmd := exec.Command("sleep", "30")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	rootDone := make(chan struct{})
	w, err := Start(cmd, false, func() { go func() { cmd.Wait(); close(rootDone) }() }, rootDone)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { cmd.Process.Kill(); <-rootDone }()
	// A pid above pid_max: never a process.
	w.mu.Lock()
	w.ts[1<<23] = &tracee{fresh: true}
	w.mu.Unlock()
	before := DetachTimeouts()
	w.Detach()
	if n := DetachTimeouts() - before; n > 0 {
		t.Fatalf("the detach waited out its timeout for a lost tracee")
	}
	if s, err := proc.Default.Stat(cmd.Process.Pid); err != nil || s.State == 't' || s.State == 'T' {
		t.Fatalf("root after the detach: %+v %v", s, err)
	}
}
