package sockdiag

import (
	"os"
	"path/filepath"
	"strconv"
	"sync/atomic"
)

// LookupFor is Lookup in the network namespace of pid: the caller's own
// table when pid shares it (or pid is 0, or the namespaces cannot be
// compared), else the table pid sees. A worker in a container, a pod or
// a test's namespace listens in a table the caller's sock_diag does not
// answer for.
func LookupFor(procRoot string, pid, port int) ([]Listener, error) {
	if pid <= 0 || !OtherNetNS(procRoot, pid) {
		return Lookup(procRoot, port)
	}
	return listenersIn(procRoot, pid, uint16(port))
}

// OtherNetNS reports whether pid is known to be in another network
// namespace than the caller: false when either namespace cannot be read
// (a fixture /proc, a gone process, a kernel without nsfs).
func OtherNetNS(procRoot string, pid int) bool {
	if procRoot == "" {
		procRoot = "/proc"
	}
	self, err := ownNetNS(procRoot)
	if err != nil {
		return false
	}
	link := filepath.Join(procRoot, strconv.Itoa(pid), "ns", "net")
	var other uint64
	if procRoot == "/proc" {
		// The live link's target names the namespace by the inode its
		// stat would give: read without the stat's walk into nsfs.
		other, err = nsLinkIno(link)
	} else {
		other, err = nsIno(link)
	}
	return err == nil && other != self
}

// ownNetNS is the inode of the caller's network namespace below procRoot:
// read once for the live /proc (a look asks it at every query, and the
// stat of an nsfs link walks /proc), each time below another root (a
// fixture).
func ownNetNS(procRoot string) (uint64, error) {
	if procRoot == "/proc" {
		return liveNetNS()
	}
	return nsIno(filepath.Join(procRoot, "self", "ns", "net"))
}

// liveNetNS is the caller's network namespace, read once, read from the calling
// thread's link, not the main thread's: the only threads childproof moves
// into another namespace (diagSocketIn, the probes' dial) are locked to a
// goroutine that runs nothing else meanwhile, and the main thread may be
// one of them.
func liveNetNS() (uint64, error) {
	if ino := liveNS.Load(); ino != 0 {
		return ino, nil
	}
	ino, err := nsIno("/proc/thread-self/ns/net")
	if err != nil {
		// A kernel before 3.17 has no thread-self.
		ino, err = nsIno("/proc/self/ns/net")
	}
	if err == nil {
		liveNS.Store(ino)
	}
	return ino, err
}

// liveNS is liveNetNS's answer once it had one (0: none yet; a failed
// read is tried again at the next call).
var liveNS atomic.Uint64

// procListenersOf parses pid's own net/tcp{,6}: the table of pid's
// network namespace, readable without privilege.
func procListenersOf(procRoot string, pid int, port uint16) ([]Listener, error) {
	if procRoot == "" {
		procRoot = "/proc"
	}
	return ProcListeners(filepath.Join(procRoot, strconv.Itoa(pid)), port)
}

func nsIno(path string) (uint64, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return 0, err
	}
	return inode(fi), nil
}
