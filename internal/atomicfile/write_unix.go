//go:build unix

package atomicfile

import (
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"

	"golang.org/x/sys/unix"
)

// write is what os.CreateTemp, Write, Chmod, Sync, Close and Rename do,
// in as many system calls and no more: an *os.File also asks the
// runtime's poller to take the descriptor (two fcntl and an epoll_ctl,
// refused for a regular file, and two fcntl more to undo them), five
// system calls of eleven for a record written on the launch's hot path.
func write(path string, data []byte, perm fs.FileMode, durable bool) error {
	dir := filepath.Dir(path)
	tmp, err := WriteTemp(dir, "."+filepath.Base(path)+".", data, perm, durable)
	if tmp == "" {
		return err
	}
	if err == nil {
		if rerr := unix.Rename(tmp, path); rerr != nil {
			err = &os.LinkError{Op: "rename", Old: tmp, New: path, Err: rerr}
		}
	}
	if err != nil {
		unix.Unlink(tmp)
		return err
	}
	if durable {
		SyncDir(dir)
	}
	return nil
}

// WriteTemp writes data to a new file in dir named prefix and a random
// number (created exclusively, as os.CreateTemp does), with mode perm
// (created so where the umask keeps it whole, else set by fchmod) and
// fsync'd when durable, through a bare descriptor (no *os.File's fcntl
// and epoll_ctl). It returns the file's name even when writing it failed
// (the caller renames it into place or removes it); "" when none was
// created.
func WriteTemp(dir, prefix string, data []byte, perm fs.FileMode, durable bool) (string, error) {
	prefix = filepath.Join(dir, prefix)
	mode := CreateMode(perm)
	var tmp string
	fd := -1
	for range 10000 {
		tmp = prefix + strconv.FormatUint(uint64(rand.Uint32()), 10)
		var err error
		fd, err = unix.Open(tmp, unix.O_RDWR|unix.O_CREAT|unix.O_EXCL|unix.O_CLOEXEC, mode)
		if err == unix.EEXIST || err == unix.EINTR {
			continue
		}
		if err != nil {
			return "", &fs.PathError{Op: "open", Path: tmp, Err: err}
		}
		break
	}
	if fd < 0 {
		return "", &fs.PathError{Op: "createtemp", Path: prefix + "*", Err: fs.ErrExist}
	}
	err := Fill(fd, tmp, data, perm, durable)
	if cerr := unix.Close(fd); err == nil && cerr != nil {
		err = &fs.PathError{Op: "close", Path: tmp, Err: cerr}
	}
	return tmp, err
}

// CreateMode is the mode to create a file with that is to have mode
// perm: perm itself where the umask leaves it whole (a state file's
// 0600: no fchmod after, CreatedExact), else 0600 until Fill sets perm.
func CreateMode(perm fs.FileMode) uint32 {
	if CreatedExact(perm) {
		return uint32(perm.Perm())
	}
	return 0o600
}

// Fill writes data to fd, a file just created with CreateMode(perm) (by
// WriteTemp, or unnamed with O_TMPFILE), gives it mode perm where its
// creation could not, and fsyncs it when durable. path names the file
// in its errors.
func Fill(fd int, path string, data []byte, perm fs.FileMode, durable bool) error {
	err := writeAll(fd, path, data)
	if err == nil && !CreatedExact(perm) {
		err = retry("chmod", path, func() error { return unix.Fchmod(fd, uint32(perm.Perm())) })
	}
	if err == nil && durable {
		err = retry("sync", path, func() error { return unix.Fsync(fd) })
	}
	return err
}

// writeAll writes data to fd, as (*os.File).Write does.
func writeAll(fd int, path string, data []byte) error {
	for len(data) > 0 {
		n, err := unix.Write(fd, data)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return &fs.PathError{Op: "write", Path: path, Err: err}
		}
		if n == 0 {
			// Nothing taken and no error (a FUSE file system may say
			// so): an error, as (*os.File).Write says it, not a loop
			// for ever.
			return &fs.PathError{Op: "write", Path: path, Err: io.ErrUnexpectedEOF}
		}
		data = data[n:]
	}
	return nil
}

// retry runs f until it is not interrupted, its error a *fs.PathError.
func retry(op, path string, f func() error) error {
	for {
		err := f()
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return &fs.PathError{Op: op, Path: path, Err: err}
		}
		return nil
	}
}

// SyncDir fsyncs a directory, making a rename in it durable.
func SyncDir(dir string) error {
	fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return &fs.PathError{Op: "open", Path: dir, Err: err}
	}
	defer unix.Close(fd)
	return retry("sync", dir, func() error { return unix.Fsync(fd) })
}
