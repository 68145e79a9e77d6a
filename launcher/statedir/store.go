package statedir

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/childproof/childproof/launcher/failure"
	"github.com/childproof/childproof/outcome"
)

// Store is an opened state directory: its files, its digest key and its
// launch locks. It is safe for concurrent use, by goroutines as by
// processes (what it writes is guarded by locks on disk).
type Store struct {
	// Dir is the state directory.
	Dir string
	// Files names the launches' state files (Encode).
	Files Layout
	key   []byte
	// keyErr says why the key is unusable (empty, corrupt): ps and stop
	// work without it; what needs a digest fails with it.
	keyErr error
	// recKey is RecordKey's, derived once.
	recKey []byte
	// made is the directories Open created (a fresh state dir): mode
	// 0700 and ours, on a file system that just took them; opened is
	// when (CleanRecordTemps).
	made   []string
	opened time.Time
	// madeChecked is set by the first CheckWritable, the one that skips
	// made: a Store kept for later launches probes them again.
	madeChecked atomic.Bool
	// wrote is what it last wrote of each launch's record and round.
	wrote written
	// digests holds Digest's HMAC states (digester), keyed with key; recMACs
	// recordMAC's, keyed with recKey.
	digests, recMACs sync.Pool
}

// Open opens (creating, mode 0700) the state dir; dir "" means
// DefaultDir (inside a SLURM job step, its per-user parent is created
// mode 0700 and must be a directory of the effective uid that others may
// not write). Like OpenSSH's StrictModes, the state dir and its
// directories must be owned by the effective uid and not writable by group
// or others, else an *failure.Error with Outcome outcome.Usage names the path and the fix. It
// creates the random digest key (mode 0600, fsync'd) on first use; a key
// that is empty or corrupt does not fail Open (ps and stop need no
// digest): KeyErr reports it, and records cannot be authenticated.
func Open(dir string) (*Store, error) {
	if dir == "" {
		d, err := openDefaultStateDir(os.LookupEnv, os.Geteuid())
		if err != nil {
			return nil, err
		}
		dir = d
	}
	// As root, the path to it must be one only root controls: checked
	// and created in one walk by descriptors, nothing created through a
	// component not checked. The state dir itself may be reached through
	// a symlink the user made (~/.local/state on another disk); nothing
	// inside it may be one.
	perm, dirfd, err := makeStateDir(dir)
	if err != nil {
		return nil, err
	}
	if dirfd >= 0 {
		defer CloseDir(dirfd)
	}
	var made []string
	for _, sub := range Subdirs {
		p := filepath.Join(dir, sub)
		err := os.Mkdir(p, 0o700)
		if err == nil {
			// Made just now in the checked state dir: ours, and mode
			// 0700 at most (what CheckDir would find).
			made = append(made, sub)
			continue
		}
		if !errors.Is(err, fs.ErrExist) {
			return nil, fmt.Errorf("state dir: %w", err)
		}
		if err := CheckDir(p, false); err != nil {
			return nil, err
		}
	}
	// The layout file (what naming the files use) is childproof's own,
	// as the key and every record are. Beside a records directory made
	// just now it is created at once (migrateFresh): made so, it is ours;
	// one that is there already is checked.
	migrated := slices.Contains(made, RecordsDir) && migrateFresh(dir)
	if !migrated {
		migrated, err = checkEntry(filepath.Join(dir, LayoutFile), FileType)
		if err != nil {
			return nil, err
		}
	}
	if err := tighten(dir, perm); err != nil {
		return nil, fmt.Errorf("state dir: %w", err)
	}
	// Files of the legacy, non-injective naming move to their encoded
	// names once; a state dir that cannot be written is read in both.
	// A layout file checked above is the migration done (Migrated); a
	// records directory made above holds no record to migrate.
	switch {
	case migrated:
	case slices.Contains(made, RecordsDir):
		migrateFresh(dir)
	default:
		Migrate(dir)
	}
	s := &Store{Dir: dir, Files: Layout{Dir: dir}, made: made, opened: time.Now()}
	s.key, s.keyErr = loadKey(filepath.Join(dir, "key"), dirfd, len(made) == len(Subdirs))
	if s.keyErr != nil {
		s.key = make([]byte, 32)
		rand.Read(s.key)
	}
	s.recKey = deriveRecordKey(s.key)
	var strict *failure.Error
	if errors.As(s.keyErr, &strict) && strict.Outcome == outcome.UntrustedStateDir {
		// A key owned by someone else, writable by others or not a
		// regular file: the whole state dir is refused.
		return nil, s.keyErr
	}
	return s, nil
}

// KeyErr says why the state dir's digest key is unusable, or nil.
func (s *Store) KeyErr() error { return s.keyErr }

// tighten makes dir, of mode perm, mode 0700 when it holds nothing but
// childproof's own entries; a directory with other contents (a mistaken
// --state-dir $HOME) keeps its mode — what childproof puts there is
// 0700/0600 anyway. A dir of mode 0700 is not listed.
func tighten(dir string, perm fs.FileMode) error {
	// Only when needed: a read-only state dir must still serve ps and stop.
	if perm == 0o700 {
		return nil
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, e := range ents {
		switch e.Name() {
		case "key", "records", "logs", "locks", "history", LayoutFile:
		default:
			if !strings.HasPrefix(e.Name(), "key.") {
				return nil
			}
		}
	}
	return os.Chmod(dir, 0o700)
}

// Digest returns the keyed digest of NAME's value: "hmac-sha256:HEX".
// When the key is unusable (KeyErr) digests are made under a key of this
// process only: they compare among themselves but never match a recorded
// one. Start and Relaunch refuse to launch without the key.
func (s *Store) Digest(name, value string) string {
	// A keyed state from the pool: Reset brings it back to its keyed
	// start without hashing the key's blocks again (a verified record
	// digests every name of the worker's environ).
	// Its buffer takes NAME, NUL, value for one Write (the three
	// conversions to []byte were copies each) and is cleared after it: a
	// value may be a secret.
	d, _ := s.digests.Get().(*digester)
	if d == nil {
		d = &digester{h: hmac.New(sha256.New, s.key)}
	} else {
		d.h.Reset()
	}
	d.buf = append(append(append(d.buf[:0], name...), 0), value...)
	d.h.Write(d.buf)
	clear(d.buf)
	var sum [sha256.Size]byte
	var out [len("hmac-sha256:") + 2*sha256.Size]byte
	copy(out[:], "hmac-sha256:")
	hex.Encode(out[len("hmac-sha256:"):], d.h.Sum(sum[:0]))
	if cap(d.buf) <= 64<<10 {
		s.digests.Put(d)
	}
	return string(out[:])
}

// digester is a keyed HMAC state of Digest's and its input buffer.
type digester struct {
	h   hash.Hash
	buf []byte
}

// LaunchLock is a held launch lock. It is not safe for concurrent use.
type LaunchLock struct{ f lockFile }

// TryLock takes the lock of launch name without waiting. Another holder
// is an *failure.Error (Locked) wrapping failure.ErrLocked. Callers use
// Lock or LockWait.
func (s *Store) TryLock(name string) (*LaunchLock, error) {
	f, err := openLockFile(s.Files.Lock(name), os.O_RDWR|os.O_CREATE, 0o600)
	if errors.Is(err, fs.ErrPermission) || errors.Is(err, ErrReadOnly) {
		// A read-only state dir still serves stop: an existing lock file
		// is locked through a read-only descriptor; without one, no other
		// childproof can be changing the launch either (nothing can be
		// recorded there), and the lock is a no-op.
		if f, err = openLockFile(s.Files.Lock(name), os.O_RDONLY, 0); errors.Is(err, fs.ErrNotExist) {
			return &LaunchLock{}, nil
		}
	}
	if err != nil {
		var e *failure.Error
		if errors.As(err, &e) {
			return nil, err
		}
		return nil, fmt.Errorf("lock: %w", err)
	}
	if err := f.tryLock(); err != nil {
		f.close()
		if errors.Is(err, ErrWouldBlock) {
			return nil, &failure.Error{Outcome: outcome.Locked, Msg: fmt.Sprintf("another childproof launch of %q holds the lock", name), Err: failure.ErrLocked,
				Name: name, Fix: failure.FixLockHeld,
				Hint: "wait for it to finish, or stop it (its Launch's Stop, or launcher.StopRecord); a test gets a state dir of its own from launchertest.Start"}
		}
		return nil, fmt.Errorf("lock: %w", err)
	}
	l := &LaunchLock{f: f}
	l.f.closeWhenLost(l)
	return l, nil
}

// Unlock releases the lock; it is safe on nil and twice.
func (l *LaunchLock) Unlock() {
	if l == nil {
		return
	}
	l.f.close()
	l.f = lockFile{}
}

// LogPath returns the log file of launch name.
func (s *Store) LogPath(name string) string {
	return s.Files.Log(name)
}

// OpenLog starts the log of launch name, keeping keep earlier logs: the
// previous log becomes NAME.log.1, NAME.log.1 becomes NAME.log.2, … up
// to NAME.log.KEEP, and the oldest goes; a new log is created (mode 0600)
// without following a symlink planted in its place.
func (s *Store) OpenLog(name string, keep int) (*os.File, error) {
	path := s.LogPath(name)
	if slices.Contains(s.made, LogsDir) {
		// In a logs directory this Store's Open made, name has no log
		// yet, most often: it is created at once, as below, without the
		// lstat (O_EXCL neither follows a link nor opens what is there).
		// One that is there (an earlier launch of name from this Store)
		// fails it and goes the way below.
		if f, err := createFile(path, os.O_WRONLY|os.O_APPEND, 0o600); err == nil {
			return f, nil
		}
	}
	fi, err := os.Lstat(path)
	if err == nil {
		if !fi.Mode().IsRegular() {
			return nil, StrictModeError(path, "is not a regular file", "remove it; childproof never follows links in its state dir")
		}
		if err := rotateLogs(path, keep); err != nil {
			return nil, fmt.Errorf("log: %w", err)
		}
	}
	if err == nil || errors.Is(err, fs.ErrNotExist) {
		// The path is free now (no log yet, or it was rotated away): the
		// new log is created there. Anything else, or a file that
		// appeared meanwhile, is opened as below, with its errors.
		if f, err := createFile(path, os.O_WRONLY|os.O_APPEND, 0o600); err == nil {
			return f, nil
		}
	}
	return OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC|os.O_APPEND, 0o600)
}

// Tail returns the last n lines of the log at path (a state dir log),
// read without following a symlink and at most 8 KiB from its end; nil
// when it cannot be read.
func Tail(path string, n int) []string {
	b, off, err := readTail(path, 8192)
	if err != nil {
		return nil
	}
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	if off > 0 && len(lines) > 1 {
		lines = lines[1:]
	}
	if len(lines) == 1 && lines[0] == "" {
		return nil
	}
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return lines
}
