package noinherit

import (
	"os"
	"strconv"
	"sync"

	"golang.org/x/sys/unix"
)

// inheritMu keeps one start at a time between marking the caller's
// inherited descriptors and putting them back (Run).
var inheritMu sync.Mutex

// Run runs start (which forks and execs a launch's process)
// so that the process inherits no descriptor of this process beyond 0,
// 1 and 2 (contract §6) while the caller's own are left as they were:
// the descriptors above 2 that lack close-on-exec (those the caller
// inherited without the flag, a shell's `exec 7>file` or the pipe of a
// `$(…)` around it, or made so on purpose) are marked close-on-exec for
// the fork and unmarked once start returns. Files handed over on
// purpose (exec.Cmd's Stdin, Stdout, Stderr and ExtraFiles) still reach
// the process: dup2 clears the flag. A Go program's own descriptors are
// close-on-exec already; for those there is nothing to do. Another
// goroutine of the caller that forks during the start does not pass
// such a descriptor on unasked either.
func Run(start func() error) error {
	inheritMu.Lock()
	defer inheritMu.Unlock()
	fds := inheritedFDs()
	for _, fd := range fds {
		unix.CloseOnExec(fd)
	}
	err := start()
	for _, fd := range fds {
		if flags, err := unix.FcntlInt(uintptr(fd), unix.F_GETFD, 0); err == nil {
			unix.FcntlInt(uintptr(fd), unix.F_SETFD, flags&^unix.FD_CLOEXEC)
		}
	}
	return err
}

// inheritedFDs lists the descriptors above 2 of this process that a
// child would inherit: open and without close-on-exec. Each Run scans
// afresh (a foreground Start runs two, the watchdog's and the tree's):
// a list kept from an earlier scan would miss a descriptor the caller
// has since made inheritable, and os/exec has no close_range(2) in the
// child that would make the scan unneeded.
func inheritedFDs() []int {
	f, err := os.Open("/proc/self/fd")
	if err != nil {
		return nil
	}
	names, _ := f.Readdirnames(-1)
	own := int(f.Fd())
	f.Close()
	var fds []int
	for _, n := range names {
		fd, err := strconv.Atoi(n)
		if err != nil || fd <= 2 || fd == own {
			continue
		}
		if flags, err := unix.FcntlInt(uintptr(fd), unix.F_GETFD, 0); err == nil && flags&unix.FD_CLOEXEC == 0 {
			fds = append(fds, fd)
		}
	}
	return fds
}
