package statedir

import (
	"errors"
	"io"
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
	at, atName := unix.AT_FDCWD, path
	var fd int
	var err error
	if dirfd >= 0 {
		at, atName = dirfd, name
		fd, err = retryFD(func() (int, error) {
			return unix.Openat(dirfd, ".", unix.O_TMPFILE|unix.O_WRONLY|unix.O_CLOEXEC, 0o600)
		})
	} else {
		fd, err = retryFD(func() (int, error) {
			return unix.Open(dir, unix.O_TMPFILE|unix.O_WRONLY|unix.O_CLOEXEC, 0o600)
		})
	}
	if errors.Is(err, unix.EOPNOTSUPP) || errors.Is(err, unix.EISDIR) || errors.Is(err, unix.EINVAL) {
		return linkTempKey(path, data)
	}
	if err != nil {
		return &fs.PathError{Op: "open", Path: dir, Err: err}
	}
	defer unix.Close(fd)
	for b := data; len(b) > 0; {
		n, err := unix.Write(fd, b)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err == nil && n == 0 {
			err = io.ErrUnexpectedEOF
		}
		if err != nil {
			return &fs.PathError{Op: "write", Path: dir, Err: err}
		}
		b = b[n:]
	}
	// The mode exactly, whatever the umask took from it (as
	// atomicfile.WriteTemp does; where the umask keeps 0600 whole, the
	// file was created so).
	if !atomicfile.CreatedExact(0o600) {
		if err := retryErr(func() error { return unix.Fchmod(fd, 0o600) }); err != nil {
			return &fs.PathError{Op: "chmod", Path: dir, Err: err}
		}
	}
	if err := retryErr(func() error { return unix.Fsync(fd) }); err != nil {
		return &fs.PathError{Op: "sync", Path: dir, Err: err}
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
