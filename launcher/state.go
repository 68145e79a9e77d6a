package launcher

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"github.com/childproof/childproof/spec"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/childproof/childproof/launcher/statedir"
	"github.com/childproof/childproof/outcome"
)

// State is an opened state directory: records, logs, locks and the digest key.
// It is safe for concurrent use, by goroutines as by processes (what it
// writes is guarded by locks on disk); ReadSpec is set before first use.
type State struct {
	Dir string
	// ReadSpec reads a recorded launch's spec file again, for what a
	// record alone does not say: the secrets its spec declares (ReadLog
	// masks them) and its worker selector (Census re-selects a respawned
	// worker). Nil: no spec file is read; ReadLog masks what the record
	// and the log mask name, and Census does not re-select. The childproof
	// command sets it to schema.ReadLaunch, so that this package links no
	// HCL.
	ReadSpec SpecReader
	key      []byte
	// keyErr says why the key is unusable (empty, corrupt): ps and stop
	// work without it; what needs a digest fails with it.
	keyErr error
	// recKey is recordKey's, derived once.
	recKey []byte
	// files names the launches' state files (statedir.Encode).
	files statedir.Layout
}

// SpecReader reads the launch called name from the spec file at path, as
// a command that launches nothing reads it (an env() the caller did not
// set is unknown, a missing program is no error), with vars as the
// spec's variables.
type SpecReader func(path, name string, vars map[string]string) (*spec.Launch, error)

// stateSubdirs are the directories childproof keeps in its state dir.
var stateSubdirs = statedir.Subdirs

// OpenState opens (creating, mode 0700) the state dir; dir "" means
// DefaultStateDir (inside a SLURM job step, its per-user parent is created
// mode 0700 and must be a directory of the effective uid that others may
// not write). Like OpenSSH's StrictModes, the state dir and its
// directories must be owned by the effective uid and not writable by group
// or others, else an *Error with Outcome outcome.Usage names the path and the fix. It
// creates the random digest key (mode 0600, fsync'd) on first use; a key
// that is empty or corrupt does not fail OpenState (ps and stop need no
// digest): KeyErr reports it, and records cannot be authenticated.
func OpenState(dir string) (*State, error) {
	if dir == "" {
		d, err := openDefaultStateDir(os.LookupEnv, os.Geteuid())
		if err != nil {
			return nil, err
		}
		dir = d
	}
	// As root, the path to it must be one only root controls: checked
	// and created in one walk by descriptors, nothing created through a
	// component not checked.
	if err := makeStatePath(dir); err != nil {
		return nil, err
	}
	// The state dir itself may be reached through a symlink the user made
	// (~/.local/state on another disk); nothing inside it may be one.
	if err := checkStateDir(dir, true); err != nil {
		return nil, err
	}
	for _, sub := range stateSubdirs {
		p := filepath.Join(dir, sub)
		if err := os.Mkdir(p, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
			return nil, fmt.Errorf("state dir: %w", err)
		}
		if err := checkStateDir(p, false); err != nil {
			return nil, err
		}
	}
	// The layout file (what naming the files use) is childproof's own,
	// as the key and every record are.
	if err := checkStateEntry(filepath.Join(dir, statedir.LayoutFile), stateFileType); err != nil {
		return nil, err
	}
	if err := tighten(dir); err != nil {
		return nil, fmt.Errorf("state dir: %w", err)
	}
	// Files of the legacy, non-injective naming move to their encoded
	// names once; a state dir that cannot be written is read in both.
	statedir.Migrate(dir)
	s := &State{Dir: dir, files: statedir.Layout{Dir: dir}}
	s.key, s.keyErr = loadKey(filepath.Join(dir, "key"))
	if s.keyErr != nil {
		s.key = make([]byte, 32)
		rand.Read(s.key)
	}
	s.recKey = deriveRecordKey(s.key)
	var strict *Error
	if errors.As(s.keyErr, &strict) && strict.Outcome == outcome.UntrustedStateDir {
		// A key owned by someone else, writable by others or not a
		// regular file: the whole state dir is refused.
		return nil, s.keyErr
	}
	return s, nil
}

// KeyErr says why the state dir's digest key is unusable, or nil.
func (s *State) KeyErr() error { return s.keyErr }

// launchState is the state a launch records in: st, or the state dir dir
// opened; either way its digest key must be usable.
func launchState(st *State, dir string) (*State, error) {
	if st == nil {
		var err error
		if st, err = OpenState(dir); err != nil {
			var e *Error
			if errors.As(err, &e) {
				return nil, err
			}
			return nil, &Error{Outcome: outcome.Usage, Msg: "state dir", Err: err}
		}
	}
	if err := st.KeyErr(); err != nil {
		return nil, err
	}
	return st, nil
}

// tighten makes dir mode 0700 when it holds nothing but childproof's own
// entries; a directory with other contents (a mistaken --state-dir $HOME)
// keeps its mode — what childproof puts there is 0700/0600 anyway.
func tighten(dir string) error {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, e := range ents {
		switch e.Name() {
		case "key", "records", "logs", "locks", "history", statedir.LayoutFile:
		default:
			if !strings.HasPrefix(e.Name(), "key.") {
				return nil
			}
		}
	}
	// Only when needed: a read-only state dir must still serve ps and stop.
	if fi, err := os.Stat(dir); err == nil && fi.Mode().Perm() == 0o700 {
		return nil
	}
	return os.Chmod(dir, 0o700)
}

// Digest returns the keyed digest of NAME's value: "hmac-sha256:HEX".
// When the key is unusable (KeyErr) digests are made under a key of this
// process only: they compare among themselves but never match a recorded
// one. Start and Relaunch refuse to launch without the key.
func (s *State) Digest(name, value string) string {
	m := hmac.New(sha256.New, s.key)
	m.Write([]byte(name))
	m.Write([]byte{0})
	m.Write([]byte(value))
	return "hmac-sha256:" + hex.EncodeToString(m.Sum(nil))
}

// launchLock is a held launch lock.
type launchLock struct{ f *os.File }

// tryLock takes the lock of launch name without waiting. Another holder
// is an *Error (Locked) wrapping ErrLocked. Callers use lock or lockWait.
func (s *State) tryLock(name string) (*launchLock, error) {
	f, err := openStateFile(s.files.Lock(name), os.O_RDWR|os.O_CREATE, 0o600)
	if errors.Is(err, fs.ErrPermission) || errors.Is(err, errReadOnly) {
		// A read-only state dir still serves stop: an existing lock file
		// is locked through a read-only descriptor; without one, no other
		// childproof can be changing the launch either (nothing can be
		// recorded there), and the lock is a no-op.
		if f, err = openStateFile(s.files.Lock(name), os.O_RDONLY, 0); errors.Is(err, fs.ErrNotExist) {
			return &launchLock{}, nil
		}
	}
	if err != nil {
		var e *Error
		if errors.As(err, &e) {
			return nil, err
		}
		return nil, fmt.Errorf("lock: %w", err)
	}
	if err := statedir.TryLock(f); err != nil {
		f.Close()
		if errors.Is(err, statedir.ErrWouldBlock) {
			return nil, &Error{Outcome: outcome.Locked, Msg: fmt.Sprintf("another childproof launch of %q holds the lock", name), Err: ErrLocked,
				Name: name, Fix: FixLockHeld,
				Hint: "wait for it to finish, or stop it (its Launch's Stop, or launcher.StopRecord); a test gets a state dir of its own from launchertest.Start"}
		}
		return nil, fmt.Errorf("lock: %w", err)
	}
	return &launchLock{f: f}, nil
}

// unlock releases the lock; it is safe on nil and twice.
func (l *launchLock) unlock() {
	if l == nil || l.f == nil {
		return
	}
	l.f.Close()
	l.f = nil
}

// LogPath returns the log file of launch name.
func (s *State) LogPath(name string) string {
	return s.files.Log(name)
}

// openLog starts the log of launch name, keeping keep earlier logs: the
// previous log becomes NAME.log.1, NAME.log.1 becomes NAME.log.2, … up
// to NAME.log.KEEP, and the oldest goes; a new log is created (mode 0600)
// without following a symlink planted in its place.
func (s *State) openLog(name string, keep int) (*os.File, error) {
	path := s.LogPath(name)
	if fi, err := os.Lstat(path); err == nil {
		if !fi.Mode().IsRegular() {
			return nil, strictModeError(path, "is not a regular file", "remove it; childproof never follows links in its state dir")
		}
		if err := rotateLogs(path, keep); err != nil {
			return nil, fmt.Errorf("log: %w", err)
		}
	}
	return openStateFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC|os.O_APPEND, 0o600)
}

// Tail returns the last n lines of the log at path (a state dir log),
// read without following a symlink and at most 8 KiB from its end; nil
// when it cannot be read.
func Tail(path string, n int) []string {
	f, err := openStateFile(path, os.O_RDONLY, 0)
	if err != nil {
		return nil
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil
	}
	off := max(fi.Size()-8192, 0)
	f.Seek(off, io.SeekStart)
	b, _ := io.ReadAll(io.LimitReader(f, 8192))
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
