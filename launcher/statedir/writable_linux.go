package statedir

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"

	"github.com/childproof/childproof/launcher/failure"
	"github.com/childproof/childproof/outcome"
)

// writeReserve is the room a launch's state files need at least (a
// record, a round, a log mask, the first lines of a log): a state dir
// without it is full.
const writeReserve = 16 << 10

// madeFresh is how long after Open the first CheckWritable may trust the
// directories Open made without probing them (a Store opened and kept
// idle, whose directories may have changed since, is probed).
const madeFresh = 5 * time.Second

// probeSeq tells apart the probe files of one process's concurrent
// launches (up).
var probeSeq atomic.Uint64

// CheckWritable decides whether the state dir can take everything a
// launch of name writes — its record, log, log mask, lock and round
// history — before anything is stopped or started: each directory gets
// an unnamed file (a named one where O_TMPFILE is not supported, removed
// at once), records/ one of writeReserve bytes. The launch's existing
// files there must be childproof's own (checkOwner) and of their kind.
// A read-only, full or foreign state dir is an *failure.Error (exit 2) naming the
// path; nothing is left behind. The first check of a Store does not
// probe again a directory its Open created, records/ excepted (its room):
// the mkdir just wrote it, and it is ours, mode 0700 (a fresh state dir,
// as each launchertest.Start gets, cost four probe files a start), nor
// look there for the launch's files: a directory made that moment in a
// state dir only its owner can write holds nothing of a launch not yet
// started but what childproof put there. That holds for the moment only:
// a first check later than madeFresh after Open, and every later check of
// a Store kept for other launches, probe and look in every directory.
func (s *Store) CheckWritable(name string) error {
	fresh := len(s.made) > 0 && time.Since(s.opened) < madeFresh && s.madeChecked.CompareAndSwap(false, true)
	for _, sub := range Subdirs {
		reserve := int64(0)
		if sub == RecordsDir {
			reserve = writeReserve
		} else if fresh && slices.Contains(s.made, sub) {
			continue
		}
		dir := filepath.Join(s.Dir, sub)
		if err := probeWrite(dir, reserve); err != nil {
			return notWritable(dir, err)
		}
	}
	if fresh {
		return s.checkLaunchFilesIn(name, s.made)
	}
	return s.checkLaunchFiles(name)
}

// checkLaunchFiles checks the state files of launch name that exist: the
// state dir's layout, the log and its rotations and the log mask (regular files), the history
// directory and its round files (a directory of rounds, writable), each
// owned by the effective uid and not writable by others.
func (s *Store) checkLaunchFiles(name string) error {
	if err := CheckEntry(filepath.Join(s.Dir, LayoutFile), FileType); err != nil {
		return err
	}
	return s.checkLaunchFilesIn(name, nil)
}

// checkLaunchFilesIn is checkLaunchFiles without the layout (the first
// check of a Store whose Open just checked or wrote it) and without
// looking in the directories skip (those Open made).
func (s *Store) checkLaunchFilesIn(name string, skip []string) error {
	if !slices.Contains(skip, LogsDir) {
		log := s.Files.Log(name)
		files := []string{log, s.Files.Mask(name)}
		logs, _ := filepath.Glob(log + ".*")
		files = append(files, logs...)
		for _, p := range files {
			if err := CheckEntry(p, FileType); err != nil {
				return err
			}
		}
	}
	if slices.Contains(skip, HistoryDir) {
		return nil
	}
	hist := s.RoundsDir(name)
	if ok, err := checkEntry(hist, DirType); err != nil {
		return err
	} else if ok {
		if err := probeWrite(hist, 0); err != nil {
			return notWritable(hist, err)
		}
	}
	return nil
}

// probeWrite creates a file in dir and lets it go, with reserve bytes
// allocated (where the file system allocates ahead).
func probeWrite(dir string, reserve int64) error {
	fd, err := unix.Open(dir, unix.O_TMPFILE|unix.O_WRONLY|unix.O_CLOEXEC, 0o600)
	if errors.Is(err, unix.EOPNOTSUPP) || errors.Is(err, unix.EISDIR) || errors.Is(err, unix.EINVAL) {
		// No O_TMPFILE here: a named file, removed at once.
		p := filepath.Join(dir, ".probe."+strconv.Itoa(os.Getpid())+"."+strconv.FormatUint(probeSeq.Add(1), 10))
		fd, err = unix.Open(p, unix.O_CREAT|unix.O_EXCL|unix.O_WRONLY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0o600)
		if err == nil {
			defer unix.Unlink(p)
		}
	}
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	if reserve > 0 {
		for {
			err = unix.Fallocate(fd, 0, 0, reserve)
			if !errors.Is(err, unix.EINTR) {
				break
			}
		}
		if err != nil && !errors.Is(err, unix.EOPNOTSUPP) {
			return err
		}
	}
	return nil
}

// notWritable is the error of a state dir directory that cannot be
// written: "state dir: DIR cannot be written, …: read-only file system".
func notWritable(dir string, err error) *failure.Error {
	what := "cannot be written"
	if errors.Is(err, unix.ENOSPC) || errors.Is(err, unix.EDQUOT) {
		what = fmt.Sprintf("has no room for a launch's state files (%d KiB)", writeReserve>>10)
	}
	return &failure.Error{Outcome: outcome.Usage, Err: err,
		Msg:  fmt.Sprintf("state dir: %s %s; nothing was stopped or started", dir, what),
		Path: dir, Fix: failure.FixStateDirWritable,
		Hint: "make the state dir writable (remount it read-write, free some space) or use another (Options.StateDir)"}
}
