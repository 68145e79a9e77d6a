package relay

import (
	"context"
	"fmt"
	"time"

	"golang.org/x/sys/unix"

	"github.com/childproof/childproof/internal/logrelay"
	"github.com/childproof/childproof/internal/pidfd"
	"github.com/childproof/childproof/launcher/statedir"
	"github.com/childproof/childproof/proc"
	"github.com/childproof/childproof/verify"
)

// End ends the log relay fp of a launch whose tree is gone, so that
// no relay outlives its launch. The relay ends by itself at the pipe's
// end (every holder of the write end gone): that is waited for up to
// wait, so the tree's last bytes are in the log. A relay still there
// holds a pipe that something outside the tree keeps open (a process
// that escaped it): it is sent logrelay.EndSignal, on which it logs what
// the pipe holds and exits, and SIGKILL if it has not a second later —
// each through its pidfd, only while fp still matches the recorded relay.
// It says what it did ("" when no relay was left).
func End(ctx context.Context, p proc.FS, fp *verify.Fingerprint, wait time.Duration) string {
	if fp == nil {
		return ""
	}
	fd, live, _ := fp.Open(p)
	if live != verify.Alive {
		return ""
	}
	defer unix.Close(fd)
	if pidfd.Wait(ctx, fd, wait) {
		return ""
	}
	how := "ended"
	unix.PidfdSendSignal(fd, logrelay.EndSignal, nil, 0)
	if !pidfd.Wait(context.Background(), fd, time.Second) {
		unix.PidfdSendSignal(fd, unix.SIGKILL, nil, 0)
		pidfd.Wait(context.Background(), fd, time.Second)
		how = "killed"
	}
	return fmt.Sprintf("log relay (pid %d) outlived the tree and was %s", fp.Pid, how)
}

// Collect ends, under the lock of launch name in st (taken without
// waiting: a launch in progress is left alone), the relay fp of a launch
// a census found gone; it says what it did ("" for nothing).
func Collect(st *statedir.Store, name string, fp *verify.Fingerprint, p proc.FS) string {
	if fp == nil || fp.Check(p) != verify.Alive {
		return ""
	}
	lock, err := st.Lock(name)
	if err != nil {
		return ""
	}
	defer lock.Unlock()
	// The record may have changed before the lock was taken: only the
	// relay it names now is ended.
	if rec, err := st.Load(name); err != nil || rec.Relay == nil || !rec.Relay.Matches(*fp) {
		return ""
	}
	return End(context.Background(), p, fp, 0)
}
