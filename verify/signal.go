package verify

import "fmt"

// Signal is one signal delivered to a member of the launched tree while
// childproof watched its start (the exec-capture tracer's
// signal-delivery stops, PTRACE_GETSIGINFO), or the kernel's OOM kill of
// a member (read from the launch cgroup's memory.events). It is plain data,
// safe for concurrent use while no one changes it.
type Signal struct {
	Signal string `json:"signal"`
	ToPid  int    `json:"to_pid"`
	// FromPid, FromComm and FromUID name the sender (si_pid, si_uid, and
	// its comm read at the stop); FromPid is 0 for a signal the kernel sent.
	FromPid  int    `json:"from_pid"`
	FromComm string `json:"from_comm"`
	FromUID  int    `json:"from_uid"`
	// AfterMs is when it was delivered, in milliseconds after the launch
	// started.
	AfterMs int64 `json:"after_ms"`
	// Kernel says that the kernel sent it, and why (KernelFault,
	// KernelOOMKill, KernelOther): no process did. Empty for a signal a
	// process sent.
	Kernel KernelSend `json:"kernel,omitempty"`
}

// KernelSend is why the kernel sent a signal (Signal.Kernel), as the
// JSON report spells it.
type KernelSend string

// The kernel senders of a signal.
const (
	// KernelFault: a fault of the process itself (SIGSEGV, SIGBUS, SIGFPE,
	// SIGILL, SIGTRAP).
	KernelFault KernelSend = "fault"
	// KernelOOMKill: the kernel's OOM killer.
	KernelOOMKill KernelSend = "oom-kill"
	// KernelOther: another signal the kernel sent (SI_KERNEL).
	KernelOther KernelSend = "kernel"
)

// String is the signal as the text report says it:
// "SIGTERM from pid 4 (bash, uid 0) 31 ms after start".
func (s Signal) String() string {
	switch s.Kernel {
	case "":
		comm := s.FromComm
		if comm == "" {
			comm = "gone before its name was read"
		}
		return fmt.Sprintf("%s from pid %d (%s, uid %d) %d ms after start", s.Signal, s.FromPid, comm, s.FromUID, s.AfterMs)
	case KernelOOMKill:
		return fmt.Sprintf("%s from the kernel's OOM killer (memory.events oom_kill)", s.Signal)
	case KernelFault:
		return fmt.Sprintf("%s from the kernel (a fault of the process itself) %d ms after start", s.Signal, s.AfterMs)
	}
	return fmt.Sprintf("%s from the kernel %d ms after start", s.Signal, s.AfterMs)
}
