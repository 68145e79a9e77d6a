package sockdiag

import (
	"cmp"
	"encoding/binary"
	"errors"
	"fmt"
	"net/netip"
	"os"
	"slices"
	"sync"
	"sync/atomic"
	"syscall"

	"golang.org/x/sys/unix"
)

const (
	tcpListen           = 10
	inetDiagReqBytecode = 1
	inetDiagBCSEQ       = 11 // INET_DIAG_BC_S_EQ, Linux 4.16+
	inetDiagBCSGE       = 2
	inetDiagBCSLE       = 3
	sizeofNlmsghdr      = 16
	sizeofReqV2         = 56
	sizeofReqV1         = 60
	sizeofDiagMsg       = 72
	// tcpDiagGetSock is the type of inet_diag's first request (struct
	// inet_diag_req), which the kernel dumps for both families at once
	// (AF_UNSPEC), and of its answers.
	tcpDiagGetSock = 18
)

// Listeners returns the TCP sockets in LISTEN state on port, IPv4 and IPv6,
// from one filtered sock_diag query of both families (two, one per
// family, where the kernel refuses it). port 0 means every port.
func Listeners(port uint16) ([]Listener, error) {
	c, err := Open()
	if err != nil {
		return nil, err
	}
	defer c.Close()
	return c.Listeners(port)
}

// listenersOn is Listeners over the sock_diag socket fd (made in another
// network namespace: listenersIn), which it closes.
// The socket answers for the network namespace it was made in.
func listenersOn(fd int, port uint16) ([]Listener, error) {
	defer unix.Close(fd)
	if err := unix.Bind(fd, &unix.SockaddrNetlink{Family: unix.AF_NETLINK}); err != nil {
		return nil, fmt.Errorf("sock_diag: bind: %w", err)
	}
	return listenersBound(fd, port)
}

// Conn is a sock_diag socket kept for many queries: a wait that looks
// for a listener every millisecond makes and binds its socket once, not
// at every look. It answers for the caller's network namespace. Not safe
// for concurrent use.
type Conn struct {
	fd int
}

// Open makes a Conn (ErrUnsupported: the kernel has no sock_diag).
func Open() (*Conn, error) {
	fd, err := unix.Socket(unix.AF_NETLINK, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, unix.NETLINK_INET_DIAG)
	if err != nil {
		return nil, fmt.Errorf("sock_diag: %w: %w", ErrUnsupported, err)
	}
	if err := unix.Bind(fd, &unix.SockaddrNetlink{Family: unix.AF_NETLINK}); err != nil {
		unix.Close(fd)
		return nil, fmt.Errorf("sock_diag: bind: %w", err)
	}
	return &Conn{fd: fd}, nil
}

// Listeners is the package's Listeners over c. A reply left over from
// a query that failed is told apart by its sequence number.
func (c *Conn) Listeners(port uint16) ([]Listener, error) {
	return listenersBound(c.fd, port)
}

// Close closes the socket (nil: nothing).
func (c *Conn) Close() error {
	if c == nil || c.fd < 0 {
		return nil
	}
	err := unix.Close(c.fd)
	c.fd = -1
	return err
}

// listenersBound queries both families over the bound socket fd: in one
// request of inet_diag's first kind, whose dump has no family
// (AF_UNSPEC), its IPv4 listeners put before its IPv6 ones as two
// queries would list them; or, where the kernel refuses that request,
// one query per family. A look for a listener asks every millisecond
// while a launch starts: one round trip, not two.
func listenersBound(fd int, port uint16) ([]Listener, error) {
	bp := bufs.Get().(*[]byte)
	defer bufs.Put(bp)
	buf := *bp
	if !noUnspec.Load() {
		ls, err := query(fd, unix.AF_UNSPEC, port, buf)
		if err == nil {
			slices.SortStableFunc(ls, func(a, b Listener) int { return cmp.Compare(familyRank(a), familyRank(b)) })
			return ls, nil
		}
		if !errors.Is(err, syscall.EINVAL) && !errors.Is(err, syscall.EOPNOTSUPP) {
			return nil, err
		}
		noUnspec.Store(true) // a kernel without that request: per family from now on
	}
	var out []Listener
	for _, fam := range []uint8{unix.AF_INET, unix.AF_INET6} {
		ls, err := query(fd, fam, port, buf)
		if err != nil {
			return nil, err
		}
		out = append(out, ls...)
	}
	return out, nil
}

// noUnspec is set once the kernel refused a query of both families.
var noUnspec atomic.Bool

// familyRank orders IPv4 listeners before IPv6 ones.
func familyRank(l Listener) int {
	if l.Addr.Is4() {
		return 0
	}
	return 1
}

// bufs holds the 32 KiB receive buffers of the queries: a look for a
// listener runs every millisecond while a launch starts, and a fresh
// buffer each time was garbage the collector then cleared and swept.
var bufs = sync.Pool{New: func() any { b := make([]byte, 32<<10); return &b }}

// seq numbers requests; Listeners may run concurrently (parallel tests).
var seq atomic.Uint32

// request is the dump request of family fam's listeners on port (0:
// all): inet_diag_req_v2, or for AF_UNSPEC the first inet_diag_req, the
// one whose dump covers both families.
func request(fam uint8, port uint16) []byte {
	var bc []byte
	if port != 0 {
		// yes: jump 8 (to the end: accept); no: jump 12 (past the end: reject).
		bc = make([]byte, 8)
		bc[0], bc[1] = inetDiagBCSEQ, 8
		binary.NativeEndian.PutUint16(bc[2:], 12)
		binary.NativeEndian.PutUint16(bc[6:], port)
	}
	attrLen := 0
	if bc != nil {
		attrLen = 4 + len(bc)
	}
	size, typ := sizeofReqV2, uint16(unix.SOCK_DIAG_BY_FAMILY)
	if fam == unix.AF_UNSPEC {
		size, typ = sizeofReqV1, tcpDiagGetSock
	}
	total := sizeofNlmsghdr + size + attrLen
	b := make([]byte, total)
	binary.NativeEndian.PutUint32(b[0:], uint32(total))
	binary.NativeEndian.PutUint16(b[4:], typ)
	binary.NativeEndian.PutUint16(b[6:], unix.NLM_F_REQUEST|unix.NLM_F_DUMP)
	binary.NativeEndian.PutUint32(b[8:], seq.Add(1))
	r := b[sizeofNlmsghdr:]
	if fam == unix.AF_UNSPEC {
		// inet_diag_req: family (unused: the dump is AF_UNSPEC's),
		// src and dst lengths, ext, id (48 bytes), states, dbs.
		binary.NativeEndian.PutUint32(r[4+40:], ^uint32(0)) // id's cookie: INET_DIAG_NOCOOKIE
		binary.NativeEndian.PutUint32(r[4+44:], ^uint32(0))
		binary.NativeEndian.PutUint32(r[52:], 1<<tcpListen)
	} else {
		r[0] = fam
		r[1] = unix.IPPROTO_TCP
		binary.NativeEndian.PutUint32(r[4:], 1<<tcpListen)
		// id: sport/dport etc. left zero; cookie = INET_DIAG_NOCOOKIE.
		binary.NativeEndian.PutUint32(r[48:], ^uint32(0))
		binary.NativeEndian.PutUint32(r[52:], ^uint32(0))
	}
	if bc != nil {
		a := b[sizeofNlmsghdr+size:]
		binary.NativeEndian.PutUint16(a[0:], uint16(attrLen))
		binary.NativeEndian.PutUint16(a[2:], inetDiagReqBytecode)
		copy(a[4:], bc)
	}
	return b
}

func query(fd int, fam uint8, port uint16, buf []byte) ([]Listener, error) {
	req := request(fam, port)
	mySeq := binary.NativeEndian.Uint32(req[8:])
	if err := unix.Sendto(fd, req, 0, &unix.SockaddrNetlink{Family: unix.AF_NETLINK}); err != nil {
		return nil, fmt.Errorf("sock_diag: send: %w", err)
	}
	var out []Listener
	for {
		// A read is a recv without flags; Recvfrom also allocated the
		// sender's address, which is the kernel's.
		n, err := unix.Read(fd, buf)
		if err != nil {
			if errors.Is(err, syscall.EINTR) {
				continue
			}
			return nil, fmt.Errorf("sock_diag: recv: %w", err)
		}
		done, ls, err := parseMessages(buf[:n], mySeq)
		if err != nil {
			return nil, err
		}
		out = append(out, ls...)
		if done {
			return out, nil
		}
	}
}

// parseMessages decodes one datagram of netlink messages.
func parseMessages(b []byte, wantSeq uint32) (done bool, out []Listener, err error) {
	for len(b) >= sizeofNlmsghdr {
		l := int(binary.NativeEndian.Uint32(b[0:]))
		typ := binary.NativeEndian.Uint16(b[4:])
		s := binary.NativeEndian.Uint32(b[8:])
		if l < sizeofNlmsghdr || l > len(b) {
			return true, out, errors.New("sock_diag: truncated message")
		}
		msg := b[sizeofNlmsghdr:l]
		b = b[min((l+3)&^3, len(b)):]
		if s != wantSeq {
			continue
		}
		switch typ {
		case unix.NLMSG_DONE:
			return true, out, nil
		case unix.NLMSG_ERROR:
			if len(msg) >= 4 {
				e := int32(binary.NativeEndian.Uint32(msg))
				if e != 0 {
					return true, out, fmt.Errorf("sock_diag: %w", os.NewSyscallError("netlink", syscall.Errno(-e)))
				}
			}
			return true, out, nil
		case unix.SOCK_DIAG_BY_FAMILY, tcpDiagGetSock:
			if len(msg) < sizeofDiagMsg {
				continue
			}
			out = append(out, decodeDiagMsg(msg))
		}
	}
	return false, out, nil
}

func decodeDiagMsg(m []byte) Listener {
	fam := m[0]
	id := m[4:52]
	port := binary.BigEndian.Uint16(id[0:])
	var addr netip.Addr
	if fam == unix.AF_INET {
		addr = netip.AddrFrom4([4]byte(id[4:8]))
	} else {
		addr = netip.AddrFrom16([16]byte(id[4:20]))
	}
	return Listener{
		Addr:  addr,
		Port:  port,
		UID:   binary.NativeEndian.Uint32(m[64:]),
		Inode: uint64(binary.NativeEndian.Uint32(m[68:])),
	}
}
