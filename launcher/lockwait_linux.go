package launcher

import (
	"context"
	"errors"
	"time"
)

// forkWindow is how long lock looks again at a lock that another holds:
// a lock just let go of can still be held for a moment by a copy of its
// descriptor in a process forked (by another goroutine: up's launches
// start side by side) between its fork and its exec, where the copy is
// closed (O_CLOEXEC). A launch that really holds it is refused this much
// later.
const forkWindow = 250 * time.Millisecond

// lock takes the lock of launch name, looking again for up to forkWindow
// while another holds it; then it fails as tryLock does (Locked, exit 6).
func (s *State) lock(name string) (*launchLock, error) {
	return s.lockWait(context.Background(), name, forkWindow)
}

// lockWait takes the lock of launch name, waiting up to wait for another
// holder (a run, relaunch or stop in progress) to let go; then it fails as
// lock does (Locked, exit 6).
func (s *State) lockWait(ctx context.Context, name string, wait time.Duration) (*launchLock, error) {
	end := time.Now().Add(wait)
	for {
		l, err := s.tryLock(name)
		if err == nil || !errors.Is(err, ErrLocked) || !time.Now().Before(end) || ctx.Err() != nil {
			return l, err
		}
		select {
		case <-ctx.Done():
		case <-time.After(5 * time.Millisecond):
		}
	}
}

// sameLaunch reports whether two records describe one launch: the same
// start and the same worker (a record replaced by a newer launch, or a
// pending record by its verified one, is another).
func sameLaunch(a, b *Record) bool {
	return a.Started.Equal(b.Started) && a.Worker.Matches(b.Worker) && a.Root.Matches(b.Root)
}
