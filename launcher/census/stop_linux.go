package census

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"time"

	"golang.org/x/sys/unix"

	"github.com/childproof/childproof/internal/pidfd"
	"github.com/childproof/childproof/launcher/failure"
	"github.com/childproof/childproof/launcher/proctree"
	"github.com/childproof/childproof/launcher/relay"
	"github.com/childproof/childproof/launcher/sigtree"
	"github.com/childproof/childproof/launcher/statedir"
	"github.com/childproof/childproof/outcome"
	"github.com/childproof/childproof/proc"
	"github.com/childproof/childproof/verify"
)

// StopRecord stops a recorded launch. It sends the launch's stop signal
// to its process group through the root's pidfd, and to the worker and
// the cgroup's members through their own pidfds. The stop signal is the
// spec's stop.signal the launch was started with, else SIGTERM. Whatever
// is left after timeout gets SIGKILL; a timeout of zero or less means the
// record's stop.timeout, else statedir.DefaultStopGrace. It signals nothing unless
// the worker's fingerprint still matches: a reused pid is reported and
// left alone.
func StopRecord(ctx context.Context, p proc.FS, st *State, rec *statedir.Record, timeout time.Duration) (*StopResult, error) {
	res := &StopResult{Name: rec.Name}
	timeout = rec.StopGraceOr(timeout)
	sig := stopSignalName(rec)
	// A cgroup path from the record is used only when it is one
	// childproof could have made for this launch.
	cgroup := proctree.TrustedCgroup(rec.Cgroup, rec.Name)
	wfd, live, err := rec.Worker.Open(p)
	res.Worker = live
	// The job is the identity, not the pid: a worker respawned since (the
	// recorded one gone, a replacement running in its tree) is the one
	// stopped, re-selected as verify and ps re-select it.
	worker, reselected := rec.Worker, ""
	if live == verify.Gone || live == verify.Reused {
		if again, _ := st.reselectLive(p, rec); again != nil {
			if fd, l, _ := again.Worker.Open(p); l == verify.Alive {
				reselected = fmt.Sprintf(" (re-selected in its tree: the recorded worker, pid %d, is %s)", rec.Worker.Pid, live)
				wfd, live, worker = fd, l, again.Worker
			}
		}
	}
	switch live {
	case verify.Gone:
		res.Exited = true
		res.Message = fmt.Sprintf("%s: the worker (pid %d) is already gone", rec.Name, rec.Worker.Pid)
		if rec.Stopped != nil {
			// As ps --all says: stopped, by childproof, not lost.
			res.Message = fmt.Sprintf("%s: already stopped (childproof stopped it at %s); nothing to do", rec.Name, rec.Stopped.Local().Format(time.DateTime))
		}
		if n, signalled, killed := stopLeftovers(ctx, p, rec, cgroup, timeout); n > 0 {
			// A pre-fork master killed on its own leaves its workers
			// (uvicorn's, with the port) in the launch's cgroup.
			res.Signalled, res.Killed = signalled, killed
			how := sig
			if killed {
				how = "SIGKILL after " + timeout.String()
			}
			where := "in its cgroup"
			if cgroup == "" {
				where = "carrying its marker"
			}
			res.Message += fmt.Sprintf("; stopped the %d processes of its tree left %s with %s", n, where, how)
		}
		stopRelay(ctx, p, rec, res)
		markStopped(st, rec, res)
		proctree.RemoveCgroup(cgroup)
		return res, nil
	case verify.Reused:
		res.Message = fmt.Sprintf("%s: pid %d now belongs to another process (%s); its fingerprint does not match the recorded worker, so it was left alone",
			rec.Name, rec.Worker.Pid, p.Describe(rec.Worker.Pid))
		if n, signalled, killed := stopLeftovers(ctx, p, rec, cgroup, timeout); n > 0 {
			// The worker is gone, but what it left of its tree (in its
			// cgroup, or carrying its marker) is the launch's.
			res.Signalled, res.Killed = signalled, killed
			res.Message += fmt.Sprintf("; stopped the %d processes of its tree left behind", n)
		}
		stopRelay(ctx, p, rec, res)
		markStopped(st, rec, res)
		proctree.RemoveEmptyCgroup(cgroup)
		return res, nil
	case verify.Unknown:
		return res, &failure.Error{Outcome: outcome.Unproven, Msg: fmt.Sprintf("%s: cannot identify the worker (pid %d)", rec.Name, rec.Worker.Pid), Err: err}
	}
	defer unix.Close(wfd)
	t := &sigtree.Tree{P: p, Leader: -1, Pgid: rec.Pgid, Cgroup: cgroup, Marker: rec.Marker, Pinned: map[int]int{worker.Pid: wfd}, StopSig: sigtree.StopSignalOf(sig)}
	if rec.Root.Pid != worker.Pid && rec.Root.Pid == rec.Pgid {
		if fd, l, _ := rec.Root.Open(p); l == verify.Alive {
			t.Leader = fd
			defer unix.Close(fd)
		}
	} else if rec.Root.Pid == rec.Pgid {
		t.Leader = wfd // the worker is the root and leads the group
	}
	// Stopped means the whole tree: the worker, every member seen before
	// the first signal (a pre-fork server's workers, as any uid), and any
	// forked since (a supervisor's replacement): those are SIGKILLed
	// after the grace with the rest.
	res.Signalled, res.Killed = t.Terminate(ctx, timeout, 5*time.Second, func() bool {
		return pidfd.Exited(wfd) && t.WatchedGone() && len(t.Live()) == 0
	})
	t.Unwatch()
	if t.Leader >= 0 && t.Leader != wfd {
		pidfd.Wait(context.Background(), t.Leader, 2*time.Second)
	}
	res.Exited = pidfd.Exited(wfd)
	if cgroup != "" {
		for range 500 {
			if pids, err := proctree.CgroupPids(cgroup); err != nil || len(pids) == 0 {
				break
			}
			time.Sleep(2 * time.Millisecond)
		}
		proctree.RemoveCgroup(cgroup)
	}
	how := sig
	if res.Killed {
		how = "SIGKILL after " + timeout.String()
	}
	res.Message = fmt.Sprintf("%s: stopped the worker (pid %d)%s and its process group with %s", rec.Name, worker.Pid, reselected, how)
	stopRelay(ctx, p, rec, res)
	markStopped(st, rec, res)
	return res, nil
}

// stopRelay ends the launch's log relay once its tree is stopped: after
// the tree's last bytes are in the log (it ends by itself at the pipe's
// end, waited for up to RelayWait), or, when something outside the tree
// still holds the pipe, by relay.End's signals (said in res.Message).
func stopRelay(ctx context.Context, p proc.FS, rec *statedir.Record, res *StopResult) {
	if note := relay.End(ctx, p, rec.Relay, RelayWait); note != "" {
		res.Message += "; " + note
	}
}

// stopLeftovers ends what is left of the launch's tree once its worker is
// gone: the members of its own cgroup, or without one the processes that
// carry its marker (each signalled through its own pidfd); it returns how
// many there were. A record without either (written before markers)
// identifies none, and nothing is signalled.
func stopLeftovers(ctx context.Context, p proc.FS, rec *statedir.Record, cgroup string, timeout time.Duration) (n int, signalled, killed bool) {
	if cgroup == "" && rec.Marker == "" {
		return 0, false, false
	}
	t := &sigtree.Tree{P: p, Leader: -1, Pgid: rec.Pgid, Cgroup: cgroup, Marker: rec.Marker, Pinned: map[int]int{}, StopSig: sigtree.StopSignalOf(stopSignalName(rec))}
	n = len(t.Live())
	if n == 0 {
		return 0, false, false
	}
	signalled, killed = t.Terminate(ctx, timeout, 5*time.Second, func() bool { return t.WatchedGone() && len(t.Live()) == 0 })
	t.Unwatch()
	for range 500 {
		if pids, err := proctree.CgroupPids(cgroup); err != nil || len(pids) == 0 {
			break
		}
		time.Sleep(2 * time.Millisecond)
	}
	return n, signalled, killed
}

// markStopped marks rec stopped — only while the record file still
// describes that launch: a record a newer launch wrote meanwhile (a
// restart, a run after the supervisor let go) is never marked. A record
// that cannot be written is said in res.RecordErr.
func markStopped(st *State, rec *statedir.Record, res *StopResult) {
	st.noteStopped(rec, res)
	markRecord(st, rec, res)
}

// markRecord is markStopped's write of the record (State.MarkStopped),
// said in res.
func markRecord(st *State, rec *statedir.Record, res *StopResult) {
	newer, err := st.MarkStopped(rec, nil)
	if newer {
		res.Newer = true
	}
	if err != nil {
		res.RecordErr = err
	}
}

// StopLaunch stops the recorded launch name with StopRecord under the
// launch's lock, as the stop command does, so that it never acts on or
// marks a record that a concurrent launch is replacing. It waits up to
// wait for a run, relaunch or stop in progress to let go of the lock;
// zero or less waits the record's stop timeout. When that wait ends first,
// nothing is signalled and the error is an *failure.Error of Outcome
// outcome.Locked (exit 6). Under the lock it loads the record, and check
// may refuse it before anything is signalled (down refuses another spec's;
// nil refuses nothing).
//
// A launch supervised in the foreground holds its lock as long as it
// runs. Its worker is stopped without the lock, and the supervisor marks
// the record when it sees the worker go. StopLaunch marks it only if it
// can take the lock afterwards and the record still describes the launch
// it stopped.
//
// A record it cannot read signals nothing. A missing one is an *failure.Error of
// Outcome outcome.NotRecorded wrapping fs.ErrNotExist. One that fails
// authentication gives Load's error, which wraps statedir.ErrUntrusted. Any other
// is an *failure.Error of Outcome outcome.Usage (Fix failure.FixRecordUnreadable) wrapping
// the cause.
func StopLaunch(ctx context.Context, p proc.FS, st *State, name string, timeout, wait time.Duration, check func(*statedir.Record) error) (*statedir.Record, *StopResult, error) {
	lock, lerr := st.TryLock(name)
	if wait <= 0 {
		wait = statedir.DefaultStopGrace
		if rec, err := st.Load(name); err == nil {
			wait = rec.StopGraceOr(timeout)
		}
	}
	if lerr != nil && !errors.Is(lerr, failure.ErrLocked) {
		return nil, nil, unreadRecord(st, name, lerr)
	}
	if lerr != nil {
		if rec, err := st.Load(name); err == nil && rec.Supervisor != 0 && rec.Stopped == nil && !rec.Pending && rec.Worker.Check(p) == verify.Alive {
			if check != nil {
				if err := check(rec); err != nil {
					return rec, nil, err
				}
			}
			res, err := stopSupervised(ctx, p, st, rec, timeout)
			return rec, res, err
		}
		if lock, lerr = st.LockWait(ctx, name, wait); lerr != nil {
			var e *failure.Error
			if errors.As(lerr, &e) && e.Outcome == outcome.Locked {
				e.Msg += "; nothing was signalled"
				return nil, nil, lerr
			}
			return nil, nil, unreadRecord(st, name, lerr)
		}
	}
	defer lock.Unlock()
	rec, err := st.Load(name)
	if err != nil {
		return nil, nil, unreadRecord(st, name, err)
	}
	if check != nil {
		if err := check(rec); err != nil {
			return rec, nil, err
		}
	}
	res, err := StopRecord(ctx, p, st, rec, timeout)
	return rec, res, err
}

// unreadRecord is StopLaunch's error for the record of name it could not
// read (err): not recorded, untrusted (err as it is) or unreadable.
func unreadRecord(st *State, name string, err error) error {
	switch {
	case errors.Is(err, statedir.ErrUntrusted):
		return err
	case errors.Is(err, fs.ErrNotExist):
		return &failure.Error{Outcome: outcome.NotRecorded, Err: err, Msg: fmt.Sprintf("no launch %q is recorded in %s", name, st.Dir)}
	}
	return &failure.Error{Outcome: outcome.Usage, Err: err, Msg: fmt.Sprintf("the record of %q is unreadable, nothing was signalled", name),
		Name: name, Fix: failure.FixRecordUnreadable,
		Hint: "a new launch of " + name + " replaces it"}
}

// stopSupervised stops a launch whose foreground supervisor holds the
// lock: the worker and its tree go as StopRecord stops them; the record
// is marked only under the lock, once the supervisor let go of it.
func stopSupervised(ctx context.Context, p proc.FS, st *State, rec *statedir.Record, timeout time.Duration) (*StopResult, error) {
	unmarked := *rec
	marked := time.Now() // StopRecord's own mark is skipped: Stopped is set
	unmarked.Stopped = &marked
	res, err := StopRecord(ctx, p, st, &unmarked, timeout)
	if err != nil {
		return res, err
	}
	if lock, err := st.LockWait(ctx, rec.Name, 5*time.Second); err == nil {
		res.RecordErr, res.Newer = nil, false
		markRecord(st, rec, res)
		lock.Unlock()
	}
	return res, nil
}

// stopSignalName is the name of the recorded launch's stop signal ("SIGTERM").
func stopSignalName(r *statedir.Record) string { return sigtree.StopSignalName(r.StopSignal) }

// noteStopped records that StopRecord stopped (or found gone) the worker
// of rec's round.
func (s *State) noteStopped(rec *statedir.Record, res *StopResult) {
	if rec.Round == 0 {
		return
	}
	end := &statedir.RoundEnd{At: time.Now().UTC(), Seen: statedir.SeenStop}
	switch {
	case res.Signalled:
		end.How = statedir.EndStopped
		end.StoppedBy = "childproof sent " + stopSignalName(rec)
		if res.Killed {
			end.StoppedBy += ", then SIGKILL"
		}
	default:
		end.How, end.UptimeAtMost = statedir.EndGone, true
	}
	s.UpdateRound(rec.Name, rec.Round, func(r *statedir.Round) bool {
		if r.End != nil && (r.End.Seen == statedir.SeenSupervisor || !res.Signalled) {
			return false
		}
		s.SetEnd(r, end)
		return true
	})
}
