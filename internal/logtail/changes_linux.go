package logtail

import (
	"context"
	"os"

	"golang.org/x/sys/unix"
)

// Changes returns a channel that gets a value (coalesced) each time the
// file at path is written, truncated or renamed, until ctx is done; nil
// when the kernel cannot say (no inotify), and the caller looks on its
// own clock. The watch is on the file path names now: a follower keeps
// its own clock for the file a rotation puts in its place.
func Changes(ctx context.Context, path string) <-chan struct{} {
	fd, err := unix.InotifyInit1(unix.IN_NONBLOCK | unix.IN_CLOEXEC)
	if err != nil {
		return nil
	}
	if _, err := unix.InotifyAddWatch(fd, path, unix.IN_MODIFY|unix.IN_ATTRIB|unix.IN_MOVE_SELF|unix.IN_DELETE_SELF); err != nil {
		unix.Close(fd)
		return nil
	}
	// A non-blocking fd: reads wait in the runtime's poller, not in a
	// thread of their own.
	f := os.NewFile(uintptr(fd), "inotify")
	ch := make(chan struct{}, 1)
	go func() {
		var buf [4096]byte
		for {
			if _, err := f.Read(buf[:]); err != nil {
				return
			}
			select {
			case ch <- struct{}{}:
			default:
			}
		}
	}()
	context.AfterFunc(ctx, func() { f.Close() })
	return ch
}
