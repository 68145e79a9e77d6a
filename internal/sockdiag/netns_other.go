//go:build !linux

package sockdiag

import "os"

// listenersIn reads pid's /proc net files where there is no sock_diag.
func listenersIn(procRoot string, pid int, port uint16) ([]Listener, error) {
	return procListenersOf(procRoot, pid, port)
}

func inode(os.FileInfo) uint64 { return 0 }

// nsLinkIno is nsIno off Linux (no namespace links to read).
func nsLinkIno(path string) (uint64, error) { return nsIno(path) }
