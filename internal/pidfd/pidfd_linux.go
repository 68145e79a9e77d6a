package pidfd

import (
	"context"
	"time"

	"golang.org/x/sys/unix"
)

// Exited reports whether the process behind pidfd fd has exited; a
// negative fd never has.
func Exited(fd int) bool {
	if fd < 0 {
		return false
	}
	fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
	n, err := unix.Poll(fds, 0)
	return err == nil && n > 0
}

// Wait waits until the process behind pidfd fd exits, ctx ends or
// timeout passes; it reports whether the process exited.
func Wait(ctx context.Context, fd int, timeout time.Duration) bool {
	end := time.Now().Add(timeout)
	for {
		ms := int(time.Until(end) / time.Millisecond)
		if ms <= 0 || ctx.Err() != nil {
			return Exited(fd)
		}
		fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
		n, err := unix.Poll(fds, min(ms, 50))
		if err == nil && n > 0 {
			return true
		}
	}
}

// Status returns the wait status of the process behind pidfd fd once it
// has exited and its parent reaped it (PIDFD_GET_INFO with
// PIDFD_INFO_EXIT, Linux 6.15 and later): the status of a process that
// is not the caller's child. ok is false before then, or on an older
// kernel.
func Status(fd int) (ws unix.WaitStatus, ok bool) {
	if fd < 0 {
		return 0, false
	}
	info := unix.PidfdInfo{Mask: unix.PIDFD_INFO_EXIT}
	if err := unix.IoctlPidfdInfo(fd, &info); err != nil || info.Mask&unix.PIDFD_INFO_EXIT == 0 {
		return 0, false
	}
	return unix.WaitStatus(info.Exit_code), true
}
