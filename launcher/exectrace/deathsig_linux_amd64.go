package exectrace

import (
	"fmt"

	"golang.org/x/sys/unix"
)

// CanClearDeathSignal: on amd64 a detached launch's traced root is
// started with a parent-death signal that its tracer clears at the
// root's first stop (clearDeathSignal).
const CanClearDeathSignal = true

// clearDeathSignal clears the parent-death signal of pid, a tracee in a
// ptrace stop right after its execve (before its first instruction): the
// tracer makes it run one prctl(PR_SET_PDEATHSIG, 0) — a syscall
// instruction written over the two bytes at its instruction pointer,
// single-stepped, then the bytes and every register put back — so the
// program starts exactly as it would have. See Start for why the
// signal is there.
func clearDeathSignal(pid int) error {
	var saved unix.PtraceRegs
	if err := unix.PtraceGetRegs(pid, &saved); err != nil {
		return err
	}
	orig := make([]byte, 8)
	if _, err := unix.PtracePeekText(pid, uintptr(saved.Rip), orig); err != nil {
		return err
	}
	code := append([]byte{0x0f, 0x05}, orig[2:]...) // syscall
	if _, err := unix.PtracePokeText(pid, uintptr(saved.Rip), code); err != nil {
		return err
	}
	regs := saved
	regs.Orig_rax = ^uint64(0) // no syscall to restart
	regs.Rax = unix.SYS_PRCTL
	regs.Rdi, regs.Rsi, regs.Rdx, regs.R10, regs.R8 = unix.PR_SET_PDEATHSIG, 0, 0, 0, 0
	err := unix.PtraceSetRegs(pid, &regs)
	if err == nil {
		err = unix.PtraceSingleStep(pid)
	}
	if err == nil {
		var ws unix.WaitStatus
		if _, err = unix.Wait4(pid, &ws, waitAll|waitNoThread, nil); err == nil && (!ws.Stopped() || ws.StopSignal() != unix.SIGTRAP) {
			err = fmt.Errorf("single step: status %v", ws)
		}
	}
	if err == nil {
		var after unix.PtraceRegs
		if err = unix.PtraceGetRegs(pid, &after); err == nil && after.Rax != 0 {
			err = fmt.Errorf("prctl(PR_SET_PDEATHSIG, 0) = %d", int64(after.Rax))
		}
	}
	// Put back what it was, whatever happened.
	if _, perr := unix.PtracePokeText(pid, uintptr(saved.Rip), orig); perr != nil && err == nil {
		err = perr
	}
	if serr := unix.PtraceSetRegs(pid, &saved); serr != nil && err == nil {
		err = serr
	}
	return err
}
