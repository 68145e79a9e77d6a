package sockdiag

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// listenersIn asks sock_diag in pid's network namespace: the socket is
// made on a thread that joined the namespace for the call (root only),
// else pid's /proc net files answer.
func listenersIn(procRoot string, pid int, port uint16) ([]Listener, error) {
	if procRoot == "" || procRoot == "/proc" {
		if fd, ok := diagSocketIn(filepath.Join("/proc", strconv.Itoa(pid), "ns", "net")); ok {
			return listenersOn(fd, port)
		}
	}
	return procListenersOf(procRoot, pid, port)
}

// diagSocketIn makes a sock_diag socket inside the network namespace at
// nsPath (a socket answers for the namespace it was made in). It runs on a
// goroutine of its own, locked to its thread: a thread that cannot go back
// to its namespace is never let go, so it ends with that goroutine and no
// other code runs on it.
func diagSocketIn(nsPath string) (int, bool) {
	type made struct {
		fd int
		ok bool
	}
	c := make(chan made, 1)
	go func() {
		runtime.LockOSThread()
		fd, ok, back := socketInNS(nsPath)
		if back {
			runtime.UnlockOSThread()
		}
		c <- made{fd, ok}
	}()
	m := <-c
	return m.fd, m.ok
}

// socketInNS is diagSocketIn's work on the locked thread; back reports
// that the thread is in its own namespace again.
func socketInNS(nsPath string) (fd int, ok, back bool) {
	target, err := os.Open(nsPath)
	if err != nil {
		return -1, false, true
	}
	defer target.Close()
	home, err := os.Open("/proc/thread-self/ns/net")
	if err != nil {
		return -1, false, true
	}
	defer home.Close()
	if err := unix.Setns(int(target.Fd()), unix.CLONE_NEWNET); err != nil {
		return -1, false, true
	}
	fd, serr := unix.Socket(unix.AF_NETLINK, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, unix.NETLINK_INET_DIAG)
	if err := unix.Setns(int(home.Fd()), unix.CLONE_NEWNET); err != nil {
		if serr == nil {
			unix.Close(fd)
		}
		return -1, false, false
	}
	return fd, serr == nil, true
}

func inode(fi os.FileInfo) uint64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return st.Ino
	}
	return 0
}

// nsLinkIno is the inode of the namespace a /proc/PID/ns link names, read
// from the link's target ("net:[INODE]").
func nsLinkIno(path string) (uint64, error) {
	var buf [64]byte
	n, err := unix.Readlink(path, buf[:])
	if err != nil {
		return 0, &os.PathError{Op: "readlink", Path: path, Err: err}
	}
	t := string(buf[:n])
	i := strings.IndexByte(t, '[')
	if i < 0 || !strings.HasSuffix(t, "]") {
		return 0, fmt.Errorf("namespace link %s: unexpected target %q", path, t)
	}
	return strconv.ParseUint(t[i+1:len(t)-1], 10, 64)
}
