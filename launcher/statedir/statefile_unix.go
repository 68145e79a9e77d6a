//go:build unix

package statedir

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"

	"golang.org/x/sys/unix"
)

// checkOwner refuses a state dir entry that is not owned by the effective
// uid or is writable by group or others (as OpenSSH's StrictModes does):
// whoever can write it can make childproof act on what they wrote.
func checkOwner(path string, st *unix.Stat_t) error {
	euid := geteuid()
	if int(st.Uid) != euid {
		return StrictModeError(path, fmt.Sprintf("is owned by uid %d, not by uid %d who runs childproof", st.Uid, euid),
			fmt.Sprintf("if it is yours, chown %d %s", euid, path))
	}
	if st.Mode&0o022 != 0 {
		return StrictModeError(path, fmt.Sprintf("is writable by group or others (mode %04o)", st.Mode&0o7777),
			"chmod go-w "+path)
	}
	return nil
}

// CheckDir checks a directory of the state dir: a real directory (no
// symlink unless follow), owned by the euid, not group/world-writable.
func CheckDir(path string, follow bool) error {
	var st unix.Stat_t
	var err error
	if follow {
		err = unix.Stat(path, &st)
	} else {
		err = unix.Lstat(path, &st)
	}
	if err != nil {
		return fmt.Errorf("state dir: %w", &fs.PathError{Op: "stat", Path: path, Err: err})
	}
	return checkDirStat(path, &st)
}

// checkStateDir is CheckDir of the state dir itself (a symlink to it
// followed), returning its permission bits.
func checkStateDir(dir string) (fs.FileMode, error) {
	var st unix.Stat_t
	if err := unix.Stat(dir, &st); err != nil {
		return 0, fmt.Errorf("state dir: %w", &fs.PathError{Op: "stat", Path: dir, Err: err})
	}
	return fs.FileMode(st.Mode & 0o777), checkDirStat(dir, &st)
}

// checkDirStat is CheckDir's check of the directory path stat'd as st.
func checkDirStat(path string, st *unix.Stat_t) error {
	switch st.Mode & unix.S_IFMT {
	case unix.S_IFDIR:
	case unix.S_IFLNK:
		return StrictModeError(path, "is a symbolic link", "remove it (childproof creates a directory there)")
	default:
		return StrictModeError(path, "is not a directory", "remove it (childproof creates a directory there)")
	}
	return checkOwner(path, st)
}

// The entry types CheckEntry takes.
const (
	FileType = unix.S_IFREG
	DirType  = unix.S_IFDIR
)

// CheckEntry checks the state dir entry at path, when there is one:
// of type typ (unix.S_IFREG, unix.S_IFDIR), not a symlink, and passing
// checkOwner.
func CheckEntry(path string, typ uint32) error {
	_, err := checkEntry(path, typ)
	return err
}

// checkEntry is CheckEntry, saying whether there is an entry at path.
func checkEntry(path string, typ uint32) (bool, error) {
	var st unix.Stat_t
	if err := unix.Lstat(path, &st); err != nil {
		if errors.Is(err, unix.ENOENT) {
			return false, nil
		}
		return false, fmt.Errorf("state dir: %w", &fs.PathError{Op: "stat", Path: path, Err: err})
	}
	return true, checkEntryStat(path, typ, &st)
}

// checkEntryStat is CheckEntry's check of the entry path lstat'd as st.
func checkEntryStat(path string, typ uint32, st *unix.Stat_t) error {
	if got := uint32(st.Mode & unix.S_IFMT); got != typ {
		what := "is not a regular file"
		if typ == unix.S_IFDIR {
			what = "is not a directory"
		}
		if got == unix.S_IFLNK {
			what += " (a symbolic link)"
		}
		return StrictModeError(path, what, "remove it; childproof never follows links in its state dir")
	}
	return checkOwner(path, st)
}

// geteuid is the effective uid, asked once: checkOwner runs for every
// state file ps reads.
var geteuid = sync.OnceValue(os.Geteuid)

// OpenFile opens a file of the state dir without following a
// symlink and without blocking on a FIFO, and keeps it only when it is a
// regular file that passes checkOwner.
func OpenFile(path string, flag int, perm uint32) (*os.File, error) {
	fd, _, err := openStateFD(path, flag, perm)
	if err != nil {
		return nil, err
	}
	// Back to blocking mode: O_NONBLOCK only guarded the open.
	if fl, err := unix.FcntlInt(uintptr(fd), unix.F_GETFL, 0); err == nil {
		unix.FcntlInt(uintptr(fd), unix.F_SETFL, fl&^unix.O_NONBLOCK)
	}
	return os.NewFile(uintptr(fd), path), nil
}

// openStateFD is OpenFile's check on a bare descriptor, with the
// file's fstat.
func openStateFD(path string, flag int, perm uint32) (int, *unix.Stat_t, error) {
	var st unix.Stat_t
	fd, err := openStateAt(unix.AT_FDCWD, "", path, flag, perm, &st)
	if err != nil {
		return -1, nil, err
	}
	return fd, &st, nil
}

// createFile is OpenFile of a file that must not exist yet (O_EXCL: the
// caller just saw the path free). Such an open neither follows a link nor
// opens a FIFO, so the descriptor is opened blocking at once, without
// OpenFile's two fcntl calls; it is checked as OpenFile checks it. An
// existing path is an error wrapping fs.ErrExist.
func createFile(path string, flag int, perm uint32) (*os.File, error) {
	var st unix.Stat_t
	fd, err := openCheckedAt(unix.AT_FDCWD, "", path, flag|unix.O_CREAT|unix.O_EXCL, perm, &st)
	if err != nil {
		return nil, err
	}
	return os.NewFile(uintptr(fd), path), nil
}

// openStateAt is openStateFD of the file name in the directory open as
// dirfd, whose path is dir (for messages), filling st.
func openStateAt(dirfd int, dir, name string, flag int, perm uint32, st *unix.Stat_t) (int, error) {
	return openCheckedAt(dirfd, dir, name, flag|unix.O_NONBLOCK, perm, st)
}

// openCheckedAt is openStateAt without adding O_NONBLOCK to flag.
func openCheckedAt(dirfd int, dir, name string, flag int, perm uint32, st *unix.Stat_t) (int, error) {
	path := func() string {
		if dir == "" {
			return name
		}
		return filepath.Join(dir, name)
	}
	fd, err := unix.Openat(dirfd, name, flag|unix.O_NOFOLLOW|unix.O_CLOEXEC, perm)
	if err != nil {
		if errors.Is(err, unix.ELOOP) {
			return -1, StrictModeError(path(), "is a symbolic link", "remove it; childproof never follows links in its state dir")
		}
		return -1, &fs.PathError{Op: "open", Path: path(), Err: err}
	}
	if err := unix.Fstat(fd, st); err != nil {
		unix.Close(fd)
		return -1, &fs.PathError{Op: "stat", Path: path(), Err: err}
	}
	if st.Mode&unix.S_IFMT != unix.S_IFREG {
		unix.Close(fd)
		return -1, StrictModeError(path(), "is not a regular file", "remove it")
	}
	if err := checkOwner(path(), st); err != nil {
		unix.Close(fd)
		return -1, err
	}
	return fd, nil
}

// ReadFile reads a state file checked as OpenFile checks it,
// refusing one larger than limit bytes.
func ReadFile(path string, limit int64) ([]byte, error) {
	return ReadFileAt(unix.AT_FDCWD, "", path, limit, nil)
}

// readFileBuf is ReadFile into buf when it is large enough.
func readFileBuf(path string, limit int64, buf []byte) ([]byte, error) {
	return ReadFileAt(unix.AT_FDCWD, "", path, limit, buf)
}

// readTail reads the last size bytes of the state file path (at most;
// from off), checked as OpenFile checks it: one descriptor read from off
// until its end (a read error ends it), without an *os.File's system
// calls. The fstat of the check gives the size: once the reads have
// reached it, the file is read as it was then, without one more read to
// see its end. The buffer is of that size (a short log's tail is not
// given size bytes).
func readTail(path string, size int64) (b []byte, off int64, err error) {
	var st unix.Stat_t
	fd, err := openStateAt(unix.AT_FDCWD, "", path, unix.O_RDONLY, 0, &st)
	if err != nil {
		return nil, 0, err
	}
	defer unix.Close(fd)
	off = max(st.Size-size, 0)
	b = make([]byte, st.Size-off)
	n := 0
	for n < len(b) && off+int64(n) < st.Size {
		m, err := unix.Pread(fd, b[n:], off+int64(n))
		if err == unix.EINTR {
			continue
		}
		if err != nil || m <= 0 {
			break
		}
		n += m
	}
	return b[:n], off, nil
}

// OpenDir opens a directory of the state dir for ReadFileAt.
func OpenDir(dir string) (int, error) {
	fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return -1, &fs.PathError{Op: "open", Path: dir, Err: err}
	}
	return fd, nil
}

// CloseDir closes a directory OpenDir opened.
func CloseDir(fd int) { unix.Close(fd) }

// ReadFileAt is ReadFile of the file name in the directory open
// as dirfd (dir: its path, for messages), into buf when it is large
// enough. It reads the descriptor directly (O_NONBLOCK does not affect a
// regular file) into a buffer of the size fstat gave: ps reads a thousand
// records with four system calls each and no path walk.
func ReadFileAt(dirfd int, dir, name string, limit int64, buf []byte) ([]byte, error) {
	var st unix.Stat_t
	fd, err := openStateAt(dirfd, dir, name, unix.O_RDONLY, 0, &st)
	if err != nil {
		return nil, err
	}
	defer unix.Close(fd)
	tooBig := func() error {
		return StrictModeError(filepath.Join(dir, name), fmt.Sprintf("is larger than %d bytes", limit), "remove it")
	}
	if st.Size > limit {
		return nil, tooBig()
	}
	// One byte more than fstat said, to see a file that grows meanwhile;
	// state files are replaced by rename, never written in place, so a
	// read that returns the whole fstat size is the whole file.
	b := buf[:0]
	if int64(cap(b)) < st.Size+1 {
		b = make([]byte, st.Size+1)
	}
	b = b[:st.Size+1]
	n := 0
	for n < len(b) {
		m, err := unix.Read(fd, b[n:])
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return nil, &fs.PathError{Op: "read", Path: filepath.Join(dir, name), Err: err}
		}
		if m == 0 {
			break
		}
		n += m
		if n == int(st.Size) {
			break
		}
		if n == len(b) {
			// It grew: read on, within the limit.
			if int64(len(b)) > limit {
				return nil, tooBig()
			}
			b = append(b, make([]byte, len(b))...)
		}
	}
	if int64(n) > limit {
		return nil, tooBig()
	}
	return b[:n], nil
}

// SyncDir fsyncs a directory, making a rename or link in it durable.
func SyncDir(dir string) error {
	fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return &fs.PathError{Op: "open", Path: dir, Err: err}
	}
	defer unix.Close(fd)
	if err := unix.Fsync(fd); err != nil {
		return &fs.PathError{Op: "fsync", Path: dir, Err: err}
	}
	return nil
}

// ErrReadOnly is the error of a write to a read-only file system.
var ErrReadOnly = unix.EROFS
