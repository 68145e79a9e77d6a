package proc

import (
	"os"

	"golang.org/x/sys/unix"
)

// socketInodes is SocketInodes: each link read relative to one descriptor
// of the fd directory (no path walk per fd; SocketOwnersOf reads every fd
// of every process).
func (p FS) socketInodes(pid int) ([]uint64, error) {
	dir := p.Path(pid, "fd")
	dfd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, wrapErr(pid, "fd", err)
	}
	f := os.NewFile(uintptr(dfd), dir)
	defer f.Close()
	names, err := f.Readdirnames(-1)
	if err != nil {
		return nil, wrapErr(pid, "fd", err)
	}
	var out []uint64
	buf := make([]byte, 64)
	for _, n := range names {
		k, err := unix.Readlinkat(dfd, n, buf)
		if err != nil {
			continue // closed meanwhile
		}
		if ino, ok := socketInode(string(buf[:k])); ok {
			out = append(out, ino)
		}
	}
	return out, nil
}
