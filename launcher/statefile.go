package launcher

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"

	"golang.org/x/sys/unix"
)

// Size caps of the files childproof reads from its state dir: a record is
// a few KiB, the key 64 bytes. A planted /dev/zero or a huge file is
// refused instead of read into memory.
const (
	maxRecordSize = 1 << 20
	maxKeySize    = 4 << 10
)

// strictModeError is a state dir entry that fails the StrictModes check.
func strictModeError(path, why, fix string) *Error {
	return &Error{Outcome: Invalid, Kind: KindState, Msg: fmt.Sprintf("state dir: %s %s", path, why),
		Hint: fix + "; or use a state dir of your own (--state-dir, CHILDPROOF_STATE_DIR)"}
}

// checkOwner refuses a state dir entry that is not owned by the effective
// uid or is writable by group or others (as OpenSSH's StrictModes does):
// whoever can write it can make childproof act on what they wrote.
func checkOwner(path string, st *unix.Stat_t) error {
	euid := os.Geteuid()
	if int(st.Uid) != euid {
		return strictModeError(path, fmt.Sprintf("is owned by uid %d, not by uid %d who runs childproof", st.Uid, euid),
			fmt.Sprintf("if it is yours, chown %d %s", euid, path))
	}
	if st.Mode&0o022 != 0 {
		return strictModeError(path, fmt.Sprintf("is writable by group or others (mode %04o)", st.Mode&0o7777),
			"chmod go-w "+path)
	}
	return nil
}

// checkStateDir checks a directory of the state dir: a real directory (no
// symlink unless follow), owned by the euid, not group/world-writable.
func checkStateDir(path string, follow bool) error {
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
	switch st.Mode & unix.S_IFMT {
	case unix.S_IFDIR:
	case unix.S_IFLNK:
		return strictModeError(path, "is a symbolic link", "remove it (childproof creates a directory there)")
	default:
		return strictModeError(path, "is not a directory", "remove it (childproof creates a directory there)")
	}
	return checkOwner(path, &st)
}

// openStateFile opens a file of the state dir without following a
// symlink and without blocking on a FIFO, and keeps it only when it is a
// regular file that passes checkOwner.
func openStateFile(path string, flag int, perm uint32) (*os.File, error) {
	fd, err := unix.Open(path, flag|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC, perm)
	if err != nil {
		if errors.Is(err, unix.ELOOP) {
			return nil, strictModeError(path, "is a symbolic link", "remove it; childproof never follows links in its state dir")
		}
		return nil, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		unix.Close(fd)
		return nil, &fs.PathError{Op: "stat", Path: path, Err: err}
	}
	if st.Mode&unix.S_IFMT != unix.S_IFREG {
		unix.Close(fd)
		return nil, strictModeError(path, "is not a regular file", "remove it")
	}
	if err := checkOwner(path, &st); err != nil {
		unix.Close(fd)
		return nil, err
	}
	// Back to blocking mode: O_NONBLOCK only guarded the open.
	if fl, err := unix.FcntlInt(uintptr(fd), unix.F_GETFL, 0); err == nil {
		unix.FcntlInt(uintptr(fd), unix.F_SETFL, fl&^unix.O_NONBLOCK)
	}
	return os.NewFile(uintptr(fd), path), nil
}

// readStateFile reads a state file through openStateFile, refusing one
// larger than limit bytes.
func readStateFile(path string, limit int64) ([]byte, error) {
	f, err := openStateFile(path, unix.O_RDONLY, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > limit {
		return nil, strictModeError(path, fmt.Sprintf("is larger than %d bytes", limit), "remove it")
	}
	return b, nil
}
