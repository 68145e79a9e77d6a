//go:build !linux

package proc

import "os"

// socketInodes is SocketInodes: each fd's link read by its path.
func (p FS) socketInodes(pid int) ([]uint64, error) {
	var out []uint64
	err := p.eachSocket(pid, func(ino uint64, _ string) bool {
		out = append(out, ino)
		return false
	})
	return out, err
}

// eachSocket calls found with the inode of each socket in pid's fd table
// and the name of its fd until it returns true.
func (p FS) eachSocket(pid int, found func(ino uint64, fd string) (stop bool)) error {
	dir := p.Path(pid, "fd")
	f, err := os.Open(dir)
	if err != nil {
		return wrapErr(pid, "fd", err)
	}
	names, err := f.Readdirnames(-1)
	f.Close()
	if err != nil {
		return wrapErr(pid, "fd", err)
	}
	buf := make([]byte, 0, 64)
	for _, n := range names {
		buf = append(buf[:0], dir...)
		buf = append(buf, '/')
		buf = append(buf, n...)
		t, err := os.Readlink(string(buf))
		if err != nil {
			continue // closed meanwhile
		}
		if ino, ok := socketInode(t); ok && found(ino, n) {
			return nil
		}
	}
	return nil
}
