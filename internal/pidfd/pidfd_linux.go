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
