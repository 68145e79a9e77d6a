//go:build unix

package statedir

import (
	"context"
	"errors"
	"os"
	"runtime"
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

// lockFile is an open launch lock file: a bare descriptor (OpenFile's
// check), which is only locked and closed. The zero lockFile is none.
type lockFile struct {
	fd1     int // the descriptor + 1
	cleanup runtime.Cleanup
}

// openLockFile opens the lock file path as OpenFile does, without making
// an *os.File of it: OpenFile's fcntl calls back to blocking mode and
// os.NewFile's are of no use to flock.
func openLockFile(path string, flag int, perm uint32) (lockFile, error) {
	fd, _, err := openStateFD(path, flag, perm)
	if err != nil {
		return lockFile{}, err
	}
	return lockFile{fd1: fd + 1}, nil
}

// tryLock takes an exclusive flock on f without waiting.
func (f lockFile) tryLock() error {
	for {
		err := unix.Flock(f.fd1-1, unix.LOCK_EX|unix.LOCK_NB)
		if !errors.Is(err, unix.EINTR) {
			return err
		}
	}
}

// closeWhenLost closes f's descriptor when l, which holds it, is
// garbage collected unreleased, as an *os.File's finalizer did.
func (f *lockFile) closeWhenLost(l *LaunchLock) {
	f.cleanup = runtime.AddCleanup(l, func(fd int) { unix.Close(fd) }, f.fd1-1)
}

// close closes f (none: nothing).
func (f lockFile) close() {
	if f.fd1 == 0 {
		return
	}
	f.cleanup.Stop()
	unix.Close(f.fd1 - 1)
}
