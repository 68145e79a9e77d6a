package sockdiag

import (
	"errors"
	"fmt"
	"net/netip"
)

// ErrUnsupported means the kernel has no NETLINK_INET_DIAG for TCP (or
// the system is not Linux).
var ErrUnsupported = errors.New("sock_diag not available")

// Listener is one listening TCP socket. It is plain data, safe for
// concurrent use while no one changes it.
type Listener struct {
	// Addr is the local (bind) address; 0.0.0.0 or :: for all interfaces.
	Addr netip.Addr
	// Port is the local port.
	Port uint16
	// Inode is the socket inode, as in /proc/PID/fd's "socket:[INODE]".
	Inode uint64
	// UID is the socket owner's uid.
	UID uint32
}

// AddrPort returns the listener's address and port.
func (l Listener) AddrPort() netip.AddrPort { return netip.AddrPortFrom(l.Addr, l.Port) }

func (l Listener) String() string {
	return fmt.Sprintf("%s inode %d uid %d", l.AddrPort(), l.Inode, l.UID)
}

// AllInterfaces reports whether the listener accepts on every interface.
func (l Listener) AllInterfaces() bool { return l.Addr.IsUnspecified() }

// Matches reports whether the listener's bind address is addr. An
// IPv4-mapped IPv6 address matches its IPv4 form; 0.0.0.0 and :: match
// each other (Go's net.Listen("tcp", "0.0.0.0:N") is one dual-stack [::]
// socket), and so do the loopback addresses 127.0.0.0/8 and ::1.
func (l Listener) Matches(addr netip.Addr) bool {
	a, b := l.Addr.Unmap(), addr.Unmap()
	switch {
	case a == b:
		return true
	case a.IsUnspecified() && b.IsUnspecified():
		return true
	case a.IsLoopback() && b.IsLoopback():
		return true
	}
	return false
}
