//go:build !linux

package proc

import "os"

// socketInodes is SocketInodes: each fd's link read by its path.
func (p FS) socketInodes(pid int) ([]uint64, error) {
	dir := p.Path(pid, "fd")
	f, err := os.Open(dir)
	if err != nil {
		return nil, wrapErr(pid, "fd", err)
	}
	names, err := f.Readdirnames(-1)
	f.Close()
	if err != nil {
		return nil, wrapErr(pid, "fd", err)
	}
	var out []uint64
	buf := make([]byte, 0, 64)
	for _, n := range names {
		buf = append(buf[:0], dir...)
		buf = append(buf, '/')
		buf = append(buf, n...)
		t, err := os.Readlink(string(buf))
		if err != nil {
			continue // closed meanwhile
		}
		if ino, ok := socketInode(t); ok {
			out = append(out, ino)
		}
	}
	return out, nil
}
