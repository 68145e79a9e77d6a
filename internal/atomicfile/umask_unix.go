//go:build unix

package atomicfile

import (
	"bytes"
	"io/fs"
	"strconv"
	"sync"

	"golang.org/x/sys/unix"
)

// CreatedExact reports whether a file created with mode perm gets perm
// exactly, so that no fchmod need follow its creation: perm is an owner's
// mode only (0600, a state file's), and the process's umask, read once
// from /proc/self/status (Linux 4.7 and later; elsewhere, or where it
// cannot be read, the umask is unknown and this is false), takes none of
// the owner's bits. A umask set later that takes the owner's bits (a
// process that could not read or write its own new files) is not seen;
// one that takes group or other bits changes nothing here.
func CreatedExact(perm fs.FileMode) bool {
	u := umask()
	return perm.Perm()&^0o700 == 0 && u >= 0 && u&0o700 == 0
}

// umask is the process's umask, read from /proc/self/status without
// setting it (umask(2) can only be read by setting it, which another
// thread creating a file meanwhile would see); -1 when it cannot be
// read there.
var umask = sync.OnceValue(func() int {
	fd, err := unix.Open("/proc/self/status", unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return -1
	}
	defer unix.Close(fd)
	buf := make([]byte, 4096)
	n := 0
	for n < len(buf) {
		m, err := unix.Read(fd, buf[n:])
		if err == unix.EINTR {
			continue
		}
		if err != nil || m <= 0 {
			break
		}
		n += m
	}
	return parseUmask(buf[:n])
})

// parseUmask finds the "Umask:" line of a /proc/PID/status and returns
// its octal value, -1 when there is none.
func parseUmask(status []byte) int {
	for line := range bytes.Lines(status) {
		v, ok := bytes.CutPrefix(line, []byte("Umask:"))
		if !ok {
			continue
		}
		u, err := strconv.ParseUint(string(bytes.TrimSpace(v)), 8, 32)
		if err != nil || u > 0o777 {
			return -1
		}
		return int(u)
	}
	return -1
}
