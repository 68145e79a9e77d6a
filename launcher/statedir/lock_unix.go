//go:build unix

package statedir

import (
	"context"
	"errors"
	"os"
	"time"

	"golang.org/x/sys/unix"
)

// ErrWouldBlock is TryLock's answer when another process holds the lock.
var ErrWouldBlock = unix.EWOULDBLOCK

// TryLock takes an exclusive flock on f without waiting.
func TryLock(f *os.File) error {
	for {
		err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB)
		if !errors.Is(err, unix.EINTR) {
			return err
		}
	}
}

// WaitLock takes an exclusive flock on f, polling every poll until ctx
// is done (then ctx's error).
func WaitLock(ctx context.Context, f *os.File, poll time.Duration) error {
	for {
		err := TryLock(f)
		if !errors.Is(err, ErrWouldBlock) {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(poll):
		}
	}
}
