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
