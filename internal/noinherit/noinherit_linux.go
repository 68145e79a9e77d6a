package noinherit

import (
	"encoding/binary"
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
		// Close-on-exec is the only descriptor flag Linux has: clearing
		// it is setting none, with no F_GETFD first.
		unix.FcntlInt(uintptr(fd), unix.F_SETFD, 0)
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
	dir, err := unix.Open("/proc/self/fd", unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil
	}
	listed := fdList[:0]
	for {
		n, err := unix.Getdents(dir, dirents)
		if err == unix.EINTR {
			continue
		}
		if err != nil || n <= 0 {
			break
		}
		listed = appendFDs(listed, dirents[:n])
	}
	unix.Close(dir)
	fdList = listed
	var fds []int
	for _, fd := range listed {
		if fd <= 2 || fd == dir {
			continue
		}
		if flags, err := unix.FcntlInt(uintptr(fd), unix.F_GETFD, 0); err == nil && flags&unix.FD_CLOEXEC == 0 {
			fds = append(fds, fd)
		}
	}
	return fds
}

// dirents and fdList are inheritedFDs' buffers, kept from one scan to
// the next (inheritMu guards them): the directory is read with getdents
// into dirents, not through an *os.File (whose open asks the runtime's
// poller to take the descriptor: five system calls more) and without a
// string per entry.
var (
	dirents = make([]byte, 8192)
	fdList  []int
)

// appendFDs appends to fds the numbers named by buf's linux_dirent64
// records ("." and ".." name none).
func appendFDs(fds []int, buf []byte) []int {
	for len(buf) >= 19 {
		reclen := int(binary.NativeEndian.Uint16(buf[16:18]))
		if reclen < 19 || reclen > len(buf) {
			break
		}
		fd, digits := 0, 0
		for _, c := range buf[19:reclen] {
			if c == 0 {
				break
			}
			if c < '0' || c > '9' {
				digits = 0
				break
			}
			fd = fd*10 + int(c-'0')
			digits++
		}
		if digits > 0 && digits < 10 {
			fds = append(fds, fd)
		}
		buf = buf[reclen:]
	}
	return fds
}
