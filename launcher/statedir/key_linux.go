package statedir

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"

	"golang.org/x/sys/unix"

	"github.com/childproof/childproof/internal/atomicfile"
)

// linkNewKey writes the key data at path, as linkTempKey does but
// through a file with no name (O_TMPFILE) in the state dir: written,
// fsync'd and linked as path once whole, so it is never seen in part and
// nothing is left to remove (a named temporary file cost a random name
// and an unlink, the dearest system call of the key's). dirfd is the
// state dir open (Open's walk), -1 when it is not: it is where the file
// is made and the directory fsync'd, without opening it again. Where
// O_TMPFILE or the link of such a file is not to be had, linkTempKey.
// Another childproof's key linked first is an error wrapping
// fs.ErrExist.
func linkNewKey(path string, data []byte, dirfd int) error {
	dir, name := filepath.Dir(path), filepath.Base(path)
	// Made and linked relative to dirfd where it is open, else by path.
	at, atName, made := unix.AT_FDCWD, path, dir
	if dirfd >= 0 {
		at, atName, made = dirfd, name, "."
	}
	fd, err := retryFD(func() (int, error) {
		return unix.Openat(at, made, unix.O_TMPFILE|unix.O_WRONLY|unix.O_CLOEXEC, atomicfile.CreateMode(0o600))
	})
	if errors.Is(err, unix.EOPNOTSUPP) || errors.Is(err, unix.EISDIR) || errors.Is(err, unix.EINVAL) {
		return linkTempKey(path, data)
	}
	if err != nil {
		return &fs.PathError{Op: "open", Path: dir, Err: err}
	}
	defer unix.Close(fd)
	// Written, its mode exactly 0600 whatever the umask took from it, and
	// fsync'd, as atomicfile.WriteTemp does.
	if err := atomicfile.Fill(fd, dir, data, 0o600, true); err != nil {
		return err
	}
	// By the descriptor where the caller may (CAP_DAC_READ_SEARCH: root),
	// else through /proc's link to it.
	err = unix.Linkat(fd, "", at, atName, unix.AT_EMPTY_PATH)
	if errors.Is(err, unix.ENOENT) || errors.Is(err, unix.EPERM) {
		err = unix.Linkat(unix.AT_FDCWD, "/proc/self/fd/"+strconv.Itoa(fd), at, atName, unix.AT_SYMLINK_FOLLOW)
	}
	if errors.Is(err, unix.EEXIST) {
		return &os.LinkError{Op: "link", Old: "(unnamed key file)", New: path, Err: err}
	}
	if err != nil {
		// No link of an unnamed file here (no /proc): the named way.
		return linkTempKey(path, data)
	}
	if dirfd < 0 {
		return SyncDir(dir)
	}
	if err := retryErr(func() error { return unix.Fsync(dirfd) }); err != nil {
		return &fs.PathError{Op: "fsync", Path: dir, Err: err}
	}
	return nil
}

// retryFD runs f until it is not interrupted.
func retryFD(f func() (int, error)) (int, error) {
	for {
		fd, err := f()
		if !errors.Is(err, unix.EINTR) {
			return fd, err
		}
	}
}

// retryErr runs f until it is not interrupted.
func retryErr(f func() error) error {
	for {
		if err := f(); !errors.Is(err, unix.EINTR) {
			return err
		}
	}
}
