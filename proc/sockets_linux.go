package proc

import (
	"io/fs"

	"golang.org/x/sys/unix"
)

// socketInodes is SocketInodes: each link read relative to one descriptor
// of the fd directory (no path walk per fd; SocketOwnersOf reads every fd
// of every process).
func (p FS) socketInodes(pid int) ([]uint64, error) {
	var out []uint64
	err := p.eachSocket(pid, func(ino uint64, _ string) bool {
		out = append(out, ino)
		return false
	})
	return out, err
}

// eachSocket calls found with the inode of each socket in pid's fd table
// and the name of its fd,
// in fd order, until it returns true: HasSocket stops at the socket it
// looks for, not reading the links of the fds after it.
func (p FS) eachSocket(pid int, found func(ino uint64, fd string) (stop bool)) error {
	dir := p.file(pid, "fd")
	dfd, err, ok := -1, error(nil), false
	if h := p.heldOf(pid); h != nil {
		dfd, err, ok = h.openDir("fd")
	}
	if !ok {
		dfd, err = unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	}
	if err != nil {
		return wrapErr(pid, "fd", err)
	}
	defer unix.Close(dfd)
	// The names by getdents on the descriptor itself: an *os.File would
	// cost an fcntl and a finalizer per process.
	var names []string
	buf := make([]byte, 4096)
	for {
		n, err := unix.ReadDirent(dfd, buf)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return wrapErr(pid, "fd", &fs.PathError{Op: "readdirent", Path: dir, Err: err})
		}
		if n <= 0 {
			break
		}
		_, _, names = unix.ParseDirent(buf[:n], -1, names)
	}
	for _, n := range names {
		k, err := unix.Readlinkat(dfd, n, buf)
		if err != nil {
			continue // closed meanwhile
		}
		if ino, ok := socketInode(string(buf[:k])); ok && found(ino, n) {
			return nil
		}
	}
	return nil
}
