package launcher

import (
	"math"
	"os"
	"strconv"

	"golang.org/x/sys/unix"
)

// closeInherited marks every descriptor above 2 of this process
// close-on-exec, so that the launched process inherits none but its
// stdin, stdout and stderr: a worker holds no descriptor of its caller's
// beyond 0, 1 and 2. Go opens its own descriptors
// close-on-exec already; what this catches are those childproof itself
// inherited without the flag (a shell's `exec 7>file`, the pipe of a
// `$(…)` or `| cat` around a caller): a detached worker holding such a
// pipe kept the caller's `$(childproof run --detach …)` from returning.
// exec.Cmd's ExtraFiles still reach the child (dup2 clears the flag).
func closeInherited() {
	if err := unix.CloseRange(3, math.MaxUint32, unix.CLOSE_RANGE_CLOEXEC); err == nil {
		return
	}
	// Before Linux 5.11: one by one.
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return
	}
	for _, e := range ents {
		if fd, err := strconv.Atoi(e.Name()); err == nil && fd > 2 {
			unix.CloseOnExec(fd)
		}
	}
}
