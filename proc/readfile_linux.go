package proc

import (
	"io/fs"

	"golang.org/x/sys/unix"
)

// readFile reads the whole file at path, as os.ReadFile does and with its
// errors (*fs.PathError), in three system calls for a small record file:
// open, read, close. os.ReadFile also asks the runtime's poller to take
// the descriptor (two fcntl and an epoll_ctl, refused for a proc file, and
// two fcntl more to undo them) and fstats it for a size that /proc files
// do not report: verify --pid reads about fifteen such files, ps one or
// two per recorded worker.
func readFile(path string) ([]byte, error) { return readFileAt(unix.AT_FDCWD, path, path, nil) }

// readFileInto is readFile into buf's room (len 0; a larger one when the
// file does not fit, or buf is nil).
func readFileInto(path string, buf []byte) ([]byte, error) {
	return readFileAt(unix.AT_FDCWD, path, path, buf)
}

// readFileAt is readFileInto of name relative to the directory dir (an
// absolute name, or unix.AT_FDCWD: as readFile), with path in its errors.
func readFileAt(dir int, name, path string, buf []byte) ([]byte, error) {
	fd, err := unix.Openat(dir, name, unix.O_RDONLY|unix.O_CLOEXEC, 0)
	for err == unix.EINTR {
		fd, err = unix.Openat(dir, name, unix.O_RDONLY|unix.O_CLOEXEC, 0)
	}
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	defer unix.Close(fd)
	// Most records (stat, status, comm, cmdline) fit in one read; an
	// environ or a long cmdline grows the buffer.
	if cap(buf) == 0 {
		buf = make([]byte, 0, 2048)
	}
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := unix.Read(fd, buf[len(buf):cap(buf)])
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return nil, &fs.PathError{Op: "read", Path: path, Err: err}
		}
		if n <= 0 {
			return buf, nil
		}
		buf = buf[:len(buf)+n]
	}
}
