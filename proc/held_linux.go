package proc

import (
	"io/fs"

	"github.com/childproof/childproof/internal/pidfd"
	"golang.org/x/sys/unix"
)

// Hold returns an FS that reads pid's records through descriptors it
// opens now and holds until release is called: its /proc directory (each
// record opened relative to it, without a walk of the path) and its stat
// (read again with one pread, a fresh record each time). Everything else
// it reads as p does. The descriptors are of the process pid names now,
// and read nothing of another that takes the pid after it is reaped.
// Where pid's records cannot be opened, it returns p. The FS must not be
// used after release; it is safe for concurrent use until then.
func (p FS) Hold(pid int) (FS, func()) {
	dir, err := unix.Open(p.file(pid, ""), unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return p, func() {}
	}
	stat, err := unix.Openat(dir, "stat", unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		unix.Close(dir)
		return p, func() {}
	}
	h := &held{pid: pid, dir: dir, stat: stat}
	q := p
	q.held = h
	return q, h.release
}

// HoldWhile is Hold of the process behind pidfd fd (pid): the records
// held are that process's only if it had not exited once they were open,
// else p reads them by path, as it would unheld.
func (p FS) HoldWhile(pid, fd int) (FS, func()) {
	q, release := p.Hold(pid)
	if q.held != nil && pidfd.Exited(fd) {
		release()
		return p, func() {}
	}
	return q, release
}

// release closes the descriptors; reads after it go by path.
func (h *held) release() {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.dir < 0 {
		return
	}
	unix.Close(h.stat)
	unix.Close(h.dir)
	h.dir, h.stat = -1, -1
}

// read reads the record name, whose path is path, through the held
// descriptors into buf's room (as readFileInto), with readFile's errors;
// ok is false once they are released.
func (h *held) read(name, path string, buf []byte) (b []byte, err error, ok bool) {
	h.mu.RLock()
	defer h.mu.RUnlock()
	if h.dir < 0 {
		return nil, nil, false
	}
	if name == "stat" {
		b, err := preadRecord(h.stat, buf)
		if err != nil {
			return nil, &fs.PathError{Op: "read", Path: path, Err: err}, true
		}
		return b, nil, true
	}
	b, err = readFileAt(h.dir, name, path, buf)
	return b, err, true
}

// readlink is the target of the link name (exe, fd/N), whose path is
// path, read through the held directory, with os.Readlink's errors; ok is
// false once it is released.
func (h *held) readlink(name, path string) (target string, err error, ok bool) {
	h.mu.RLock()
	defer h.mu.RUnlock()
	if h.dir < 0 {
		return "", nil, false
	}
	for size := 256; ; size *= 4 {
		buf := make([]byte, size)
		n, err := unix.Readlinkat(h.dir, name, buf)
		for err == unix.EINTR {
			n, err = unix.Readlinkat(h.dir, name, buf)
		}
		if err != nil {
			return "", &fs.PathError{Op: "readlink", Path: path, Err: err}, true
		}
		if n < size {
			return string(buf[:n]), nil, true
		}
	}
}

// openDir opens the directory name (fd) below the held directory; ok is
// false once it is released.
func (h *held) openDir(name string) (fd int, err error, ok bool) {
	h.mu.RLock()
	defer h.mu.RUnlock()
	if h.dir < 0 {
		return -1, nil, false
	}
	fd, err = unix.Openat(h.dir, name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	return fd, err, true
}

// preadRecord reads a record the kernel makes whole at each read from
// offset 0 (stat): one pread into buf's room (2048 bytes when buf has
// less) when the record fits, else again into a larger one.
func preadRecord(fd int, buf []byte) ([]byte, error) {
	for size := max(cap(buf), 2048); ; size *= 4 {
		if cap(buf) < size {
			buf = make([]byte, size)
		}
		buf = buf[:size]
		n, err := unix.Pread(fd, buf, 0)
		for err == unix.EINTR {
			n, err = unix.Pread(fd, buf, 0)
		}
		if err != nil {
			return nil, err
		}
		if n < size {
			return buf[:n], nil
		}
	}
}
