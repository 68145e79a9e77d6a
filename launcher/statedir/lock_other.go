//go:build !unix

package statedir

import (
	"context"
	"errors"
	"os"
	"runtime"
	"time"
)

// ErrWouldBlock is never returned off Unix.
var ErrWouldBlock = errors.New("lock held")

var errNoLock = errors.New("launch locks need flock; this is " + runtime.GOOS)

// TryLock fails off Unix: nothing launches there.
func TryLock(f *os.File) error { return errNoLock }

// WaitLock fails off Unix: nothing launches there.
func WaitLock(ctx context.Context, f *os.File, poll time.Duration) error { return errNoLock }

// lockFile is an open launch lock file (nil: none).
type lockFile struct{ f *os.File }

// openLockFile opens the lock file path as OpenFile does.
func openLockFile(path string, flag int, perm uint32) (lockFile, error) {
	f, err := OpenFile(path, flag, perm)
	return lockFile{f: f}, err
}

// tryLock fails off Unix.
func (f lockFile) tryLock() error { return TryLock(f.f) }

// closeWhenLost is the *os.File's finalizer off Unix.
func (f *lockFile) closeWhenLost(l *LaunchLock) {}

// close closes f (none: nothing).
func (f lockFile) close() {
	if f.f != nil {
		f.f.Close()
	}
}
