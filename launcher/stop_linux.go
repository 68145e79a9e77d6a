package launcher

import (
	"context"
	"fmt"
	"time"

	"github.com/childproof/childproof/internal/proc"
	"github.com/childproof/childproof/verify"
	"golang.org/x/sys/unix"
)

// StopResult says what StopRecord did.
type StopResult struct {
	// Worker is what had become of the recorded worker before the stop.
	Worker verify.Liveness
	// Signalled is set when SIGTERM was sent; Killed when SIGKILL was needed.
	Signalled, Killed bool
	// Exited is set when the worker is gone afterwards.
	Exited bool
	// Message describes the outcome for a user.
	Message string
}

// StopRecord stops a recorded launch: SIGTERM to its process group through
// the root's pidfd (and to the worker and cgroup members through their own
// pidfds), wait up to timeout, then SIGKILL. It signals nothing unless the
// worker's fingerprint still matches; a reused pid is reported and left alone.
func StopRecord(ctx context.Context, p proc.FS, st *State, rec *Record, timeout time.Duration) (*StopResult, error) {
	res := &StopResult{}
	wfd, live, err := rec.Worker.Open(p)
	res.Worker = live
	switch live {
	case verify.Gone:
		res.Exited = true
		res.Message = fmt.Sprintf("%s: the worker (pid %d) is already gone", rec.Name, rec.Worker.Pid)
		markStopped(st, rec)
		removeCgroup(rec.Cgroup)
		return res, nil
	case verify.Reused:
		res.Message = fmt.Sprintf("%s: pid %d now belongs to another process (%s); its fingerprint does not match the recorded worker, so it was left alone",
			rec.Name, rec.Worker.Pid, verify.DescribePid(p, rec.Worker.Pid))
		markStopped(st, rec)
		return res, nil
	case verify.Unknown:
		return res, &Error{Code: CodeVerify, Kind: "state", Msg: fmt.Sprintf("%s: cannot identify the worker (pid %d)", rec.Name, rec.Worker.Pid), Err: err}
	}
	defer unix.Close(wfd)
	rfd := -1
	if rec.Root.Pid != rec.Worker.Pid && rec.Root.Pid == rec.Pgid {
		if fd, l, _ := rec.Root.Open(p); l == verify.Alive {
			rfd = fd
			defer unix.Close(rfd)
		}
	} else if rec.Root.Pid == rec.Pgid {
		rfd = wfd // the worker is the root and leads the group
	}
	send := func(sig unix.Signal) {
		grouped := false
		if rfd >= 0 {
			grouped = unix.PidfdSendSignal(rfd, sig, nil, unix.PIDFD_SIGNAL_PROCESS_GROUP) == nil
		}
		inGroup := func(pid int) bool {
			s, err := p.Stat(pid)
			return grouped && err == nil && s.Pgrp == rec.Pgid
		}
		if !inGroup(rec.Worker.Pid) {
			unix.PidfdSendSignal(wfd, sig, nil, 0)
		}
		if rec.Cgroup != "" {
			pids, _ := cgroupPids(rec.Cgroup)
			for _, pid := range pids {
				if inGroup(pid) {
					continue // one signal each
				}
				if fd, err := unix.PidfdOpen(pid, 0); err == nil {
					if inCgroup(p, pid, rec.Cgroup) {
						unix.PidfdSendSignal(fd, sig, nil, 0)
					}
					unix.Close(fd)
				}
			}
			if sig == unix.SIGKILL {
				cgroupKill(rec.Cgroup)
			}
		}
	}
	send(unix.SIGTERM)
	res.Signalled = true
	if !proc.WaitPidfd(ctx, wfd, timeout) {
		send(unix.SIGKILL)
		res.Killed = true
		proc.WaitPidfd(context.Background(), wfd, 5*time.Second)
	}
	if rfd >= 0 && rfd != wfd {
		proc.WaitPidfd(context.Background(), rfd, 2*time.Second)
	}
	res.Exited = proc.PidfdExited(wfd)
	if rec.Cgroup != "" {
		for range 500 {
			if pids, err := cgroupPids(rec.Cgroup); err != nil || len(pids) == 0 {
				break
			}
			time.Sleep(2 * time.Millisecond)
		}
		removeCgroup(rec.Cgroup)
	}
	how := "SIGTERM"
	if res.Killed {
		how = "SIGKILL after " + timeout.String()
	}
	res.Message = fmt.Sprintf("%s: stopped the worker (pid %d) and its process group with %s", rec.Name, rec.Worker.Pid, how)
	markStopped(st, rec)
	return res, nil
}

func markStopped(st *State, rec *Record) {
	if rec.Stopped != nil {
		return
	}
	now := time.Now().UTC()
	rec.Stopped = &now
	st.Save(rec)
}
