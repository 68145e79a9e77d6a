package main

import (
	"os"
	"runtime/debug"

	"github.com/childproof/childproof/internal/logrelay"
	"golang.org/x/sys/unix"
)

// shrinkForSupervision hands memory the supervisor no longer needs back to
// the kernel once the launch is verified: the Go heap's garbage, and the
// clean pages of our own executable that loading, linting and verifying
// touched (MADV_PAGEOUT, Linux 5.4+; they stay in the page cache and come
// back if they are touched again).
func shrinkForSupervision() {
	debug.FreeOSMemory()
	exe, err := os.Readlink("/proc/self/exe")
	if err != nil {
		return
	}
	logrelay.ReadOnlyMappings(func(start, end uintptr, _, path string) {
		if path == exe {
			unix.Syscall(unix.SYS_MADVISE, start, end-start, unix.MADV_PAGEOUT)
		}
	})
}
