package sigtree

import (
	"fmt"
	"os"
	"syscall"
)

// ExitStatus is how a process ended. It is plain data, safe for
// concurrent use while no one changes it.
type ExitStatus struct {
	// Code is its exit code; -1 when a signal killed it.
	Code int
	// Signal is the signal that killed it; 0 when it exited.
	Signal syscall.Signal
}

// ExitCode is the status a shell reports for it: Code, or 128+Signal.
func (s ExitStatus) ExitCode() int {
	if s.Signal != 0 {
		return 128 + int(s.Signal)
	}
	return s.Code
}

func (s ExitStatus) String() string {
	if s.Signal != 0 {
		return fmt.Sprintf("killed by signal %d (%s)", int(s.Signal), s.Signal)
	}
	return fmt.Sprintf("exit status %d", s.Code)
}

// WaitStatus is the ExitStatus of a wait status.
func WaitStatus(ws syscall.WaitStatus) ExitStatus {
	if ws.Signaled() {
		return ExitStatus{Code: -1, Signal: ws.Signal()}
	}
	return ExitStatus{Code: ws.ExitStatus()}
}

// ProcessStatus is the ExitStatus of a reaped process (zero for nil).
func ProcessStatus(ps *os.ProcessState) ExitStatus {
	if ps == nil {
		return ExitStatus{}
	}
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok {
		return WaitStatus(ws)
	}
	return ExitStatus{Code: ps.ExitCode()}
}
