package launcher

import (
	"context"
	"errors"
	"time"
)

// lockWait takes the lock of launch name, waiting up to wait for another
// holder (a run, relaunch or stop in progress) to let go; then it fails as
// lock does (Locked, exit 6).
func (s *State) lockWait(ctx context.Context, name string, wait time.Duration) (*launchLock, error) {
	end := time.Now().Add(wait)
	for {
		l, err := s.lock(name)
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
