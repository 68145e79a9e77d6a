//go:build unix

package inputfile

import (
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// open opens path without blocking on a FIFO or a device.
func open(path string) (*os.File, error) {
	for {
		fd, err := unix.Open(path, unix.O_RDONLY|unix.O_NONBLOCK|unix.O_CLOEXEC|unix.O_NOCTTY, 0)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return nil, &os.PathError{Op: "open", Path: path, Err: syscall.Errno(err.(unix.Errno))}
		}
		return os.NewFile(uintptr(fd), path), nil
	}
}

// blocking clears O_NONBLOCK: it only guarded the open.
func blocking(f *os.File) error {
	fl, err := unix.FcntlInt(f.Fd(), unix.F_GETFL, 0)
	if err != nil {
		return &os.PathError{Op: "fcntl", Path: f.Name(), Err: err}
	}
	if _, err := unix.FcntlInt(f.Fd(), unix.F_SETFL, fl&^unix.O_NONBLOCK); err != nil {
		return &os.PathError{Op: "fcntl", Path: f.Name(), Err: err}
	}
	return nil
}
