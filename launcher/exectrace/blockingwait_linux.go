package exectrace

import (
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// waitidBlocking is waitid(2) for a wait that lasts (the tracer's wait
// for its tree's next stop, most of a launch's start): it hands the
// calling thread's P back to the scheduler as it enters the system call,
// as the runtime does for its own blocking waits, instead of leaving it
// held in the call. A P held in a system call keeps the runtime's sysmon
// from its deep sleep, and taking it back (after 20 µs to 10 ms) resets
// sysmon to a 20 µs poll: measured, some 50 wake-ups of the process a
// traced start, most of the CPU the trace cost. The two runtime entry
// points are the ones syscall.Syscall6 uses, with entersyscallblock in
// place of entersyscall; the runtime keeps both linkable (go.dev/issue/67401).
//
//go:nosplit
//go:norace
func waitidBlocking(idType, id int, info *unix.Siginfo, options int) syscall.Errno {
	entersyscallblock()
	_, _, e := syscall.RawSyscall6(unix.SYS_WAITID, uintptr(idType), uintptr(id), uintptr(unsafe.Pointer(info)), uintptr(options), 0, 0)
	exitsyscall()
	return e
}

//go:linkname entersyscallblock runtime.entersyscallblock
func entersyscallblock()

//go:linkname exitsyscall runtime.exitsyscall
func exitsyscall()
