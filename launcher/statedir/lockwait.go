package statedir

import (
	"context"
	"errors"
	"time"

	"github.com/childproof/childproof/launcher/failure"
)

// forkWindow is how long lock looks again at a lock that another holds:
// a lock just let go of can still be held for a moment by a copy of its
// descriptor in a process forked (by another goroutine: up's launches
// start side by side) between its fork and its exec, where the copy is
// closed (O_CLOEXEC). A launch that really holds it is refused this much
// later.
const forkWindow = 250 * time.Millisecond

// Lock takes the lock of launch name, looking again for up to forkWindow
// while another holds it; then it fails as TryLock does (Locked, exit 6).
func (s *Store) Lock(name string) (*LaunchLock, error) {
	return s.LockWait(context.Background(), name, forkWindow)
}

// LockWait takes the lock of launch name, waiting up to wait for another
// holder (a run, relaunch or stop in progress) to let go; then it fails as
// Lock does (Locked, exit 6).
func (s *Store) LockWait(ctx context.Context, name string, wait time.Duration) (*LaunchLock, error) {
	end := time.Now().Add(wait)
	for {
		l, err := s.TryLock(name)
		if err == nil || !errors.Is(err, failure.ErrLocked) || !time.Now().Before(end) || ctx.Err() != nil {
			return l, err
		}
		select {
		case <-ctx.Done():
		case <-time.After(5 * time.Millisecond):
		}
	}
}
