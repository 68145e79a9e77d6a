package statedir

import "time"

// MarkStopped marks rec stopped in the state dir, with LastExit set to
// lastExit when it is not nil. It is the one place a record is marked
// stopped: StopRecord (stop, down, relaunch's stop of the previous
// launch), StopLaunch's stop of a supervised launch and Launch.Stop (and
// Wait) all mark through it. Only a record file that still describes
// rec's launch is marked: one a newer launch wrote meanwhile (a restart,
// a run after the supervisor let go) is left as it is (newer), and so is
// one already marked. err is the write's failure (a full disk, a
// read-only state dir): the record still says running. A detached
// launch's record is fsync'd (Save); a foreground one's is not, as its
// provisional and verified records are not (SaveLaunched): its processes
// die with their starter, and a power loss, the one thing an fsync guards
// against, ends them too.
func (s *Store) MarkStopped(rec *Record, lastExit *int) (newer bool, err error) {
	return s.markStopped(rec, lastExit, false)
}

// MarkStoppedHeld is MarkStopped by a caller that has held the launch's
// lock since this Store last wrote its record (the Stop of a launch
// started in the foreground): every writer of a record holds its lock, so
// the file is what this Store wrote there, and what it describes is
// taken from that write (written) without reading the file back. Where
// this Store wrote no record of the launch, the file is read as
// MarkStopped reads it.
func (s *Store) MarkStoppedHeld(rec *Record, lastExit *int) (newer bool, err error) {
	return s.markStopped(rec, lastExit, true)
}

func (s *Store) markStopped(rec *Record, lastExit *int, held bool) (newer bool, err error) {
	if rec.Stopped != nil {
		return false, nil
	}
	load := s.loadLaunch
	if held {
		load = s.loadLaunchHeld
	}
	if cur, err := load(rec.Name); err == nil && !cur.SameLaunch(rec) {
		return true, nil
	} else if err == nil && cur.Stopped != nil {
		return false, nil
	}
	now := time.Now().UTC()
	rec.Stopped = &now
	if lastExit != nil {
		rec.LastExit = lastExit
	}
	if !rec.Detached {
		return false, s.SaveLaunched(rec)
	}
	return false, s.Save(rec)
}
