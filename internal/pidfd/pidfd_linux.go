package pidfd

import (
	"context"
	"slices"
	"time"

	"golang.org/x/sys/unix"

	"github.com/childproof/childproof/internal/fdwait"
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
	return wait(ctx, fd, time.Now().Add(timeout))
}

// Await waits until the process behind pidfd fd exits or ctx ends; it
// reports whether the process exited (a negative fd: false at once).
func Await(ctx context.Context, fd int) bool {
	if fd < 0 {
		return false
	}
	return wait(ctx, fd, time.Time{})
}

// wait waits, in the runtime's network poller, until the process behind
// pidfd fd exits, ctx ends or deadline passes (the zero time: never).
func wait(ctx context.Context, fd int, deadline time.Time) bool {
	s := fdwait.New(fd)
	defer s.Close()
	return s.Wait(ctx, deadline)
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

// WaitAny waits up to timeout until one of the processes behind pidfds
// fds that is still running exits. It returns false at once when none of
// them is still running, and true once it has waited.
func WaitAny(fds []int, timeout time.Duration) bool {
	pfds := make([]unix.PollFd, 0, len(fds))
	for _, fd := range fds {
		if fd >= 0 {
			pfds = append(pfds, unix.PollFd{Fd: int32(fd), Events: unix.POLLIN})
		}
	}
	if n, err := unix.Poll(pfds, 0); err != nil {
		return false
	} else if n > 0 {
		pfds = slices.DeleteFunc(pfds, func(p unix.PollFd) bool { return p.Revents != 0 })
	}
	if len(pfds) == 0 {
		return false
	}
	running := make([]int, len(pfds))
	for i, p := range pfds {
		running[i] = int(p.Fd)
	}
	s := fdwait.New(running...)
	defer s.Close()
	s.Wait(context.Background(), time.Now().Add(timeout))
	return true
}
