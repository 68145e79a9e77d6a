package sockdiag

import (
	"encoding/binary"
	"fmt"
	"net"
	"net/netip"
	"testing"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/sys/unix"
)

func diagMsg(seq uint32, fam uint8, port uint16, inode uint32) []byte {
	b := make([]byte, sizeofNlmsghdr+sizeofDiagMsg)
	binary.NativeEndian.PutUint32(b[0:], uint32(len(b)))
	binary.NativeEndian.PutUint16(b[4:], unix.SOCK_DIAG_BY_FAMILY)
	binary.NativeEndian.PutUint32(b[8:], seq)
	m := b[sizeofNlmsghdr:]
	m[0], m[1] = fam, tcpListen
	binary.BigEndian.PutUint16(m[4:], port)
	m[8], m[11] = 127, 1
	binary.NativeEndian.PutUint32(m[64:], 1000)
	binary.NativeEndian.PutUint32(m[68:], inode)
	return b
}

func TestParseMessages(t *testing.T) {
	done := make([]byte, sizeofNlmsghdr+4)
	binary.NativeEndian.PutUint32(done[0:], uint32(len(done)))
	binary.NativeEndian.PutUint16(done[4:], unix.NLMSG_DONE)
	binary.NativeEndian.PutUint32(done[8:], 7)
	in := append(append(diagMsg(7, unix.AF_INET, 8080, 42), diagMsg(6, unix.AF_INET, 1, 1)...), done...)
	fin, ls, err := parseMessages(in, 7)
	if err != nil || !fin || len(ls) != 1 {
		t.Fatalf("parseMessages = %v %v %v", fin, ls, err)
	}
	if l := ls[0]; l.Port != 8080 || l.Inode != 42 || l.UID != 1000 || l.Addr.String() != "127.0.0.1" {
		t.Errorf("listener = %v", l)
	}
	// A kernel error comes back as an error.
	e := make([]byte, sizeofNlmsghdr+4)
	binary.NativeEndian.PutUint32(e[0:], uint32(len(e)))
	binary.NativeEndian.PutUint16(e[4:], unix.NLMSG_ERROR)
	binary.NativeEndian.PutUint32(e[8:], 7)
	binary.NativeEndian.PutUint32(e[16:], uint32(0xffffffff-uint32(unix.EINVAL)+1))
	if _, _, err := parseMessages(e, 7); err == nil {
		t.Error("NLMSG_ERROR: want error")
	}
}

func FuzzParseMessages(f *testing.F) {
	f.Add(diagMsg(1, unix.AF_INET6, 443, 9), uint32(1))
	f.Add([]byte{17, 0, 0, 0, 3, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0}, uint32(1))
	f.Fuzz(func(t *testing.T, b []byte, seq uint32) {
		parseMessages(b, seq)
	})
}

// TestConn checks that a kept socket answers query after query as
// Listeners does: the listener while it listens, none once it closed.
func TestConn(t *testing.T) {
	c, err := Open()
	if err != nil {
		t.Skip(err)
	}
	defer c.Close()
	ln, port := listen(t, "tcp4", "127.0.0.1:0")
	for range 3 {
		got, err := c.Listeners(port)
		if err != nil {
			t.Fatal(err)
		}
		want, err := Listeners(port)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, got, cmp.Comparer(func(a, b netip.Addr) bool { return a == b })); diff != "" || len(got) != 1 {
			t.Fatalf("Conn.Listeners(%d) differs from Listeners (-want +got):\n%s", port, diff)
		}
	}
	ln.Close()
	if got, err := c.Listeners(port); err != nil || len(got) != 0 {
		t.Errorf("after close: %v, %v; want none", got, err)
	}
	if err := c.Close(); err != nil {
		t.Error(err)
	}
	if err := c.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
}

// TestListenersOneQuery: the one query of both families finds what
// one query per family finds, in the same order (IPv4 first), for a port
// held in both families, one held in one, and every port.
func TestListenersOneQuery(t *testing.T) {
	l4, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l4.Close()
	port := l4.Addr().(*net.TCPAddr).Port
	l6, err := net.Listen("tcp6", fmt.Sprintf("[::1]:%d", port))
	if err != nil {
		t.Skipf("no IPv6 loopback: %v", err)
	}
	defer l6.Close()
	other, err := net.Listen("tcp", "localhost:0")
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	c, err := Open()
	if err != nil {
		t.Skip(err)
	}
	defer c.Close()
	defer noUnspec.Store(false)
	for _, p := range []int{port, other.Addr().(*net.TCPAddr).Port, 0} {
		noUnspec.Store(false)
		both, err := c.Listeners(uint16(p))
		if err != nil || noUnspec.Load() {
			t.Fatalf("port %d: one query of both families: %v (refused: %v)", p, err, noUnspec.Load())
		}
		noUnspec.Store(true)
		each, err := c.Listeners(uint16(p))
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(each, both, cmp.Comparer(func(a, b netip.Addr) bool { return a == b })); diff != "" && p != 0 {
			t.Errorf("port %d (-per family +both):\n%s", p, diff)
		}
		if p == port && len(both) != 2 {
			t.Errorf("port %d held in both families: %v", p, both)
		}
		if p == 0 && len(both) != len(each) {
			// Every port: other processes' listeners may come and go
			// between the two queries; the count is what a look uses.
			t.Logf("every port: %d and %d listeners", len(both), len(each))
		}
	}
}

// BenchmarkConnListenersPerFamily is BenchmarkConnListeners the way a
// kernel that refuses the query of both families is asked: one query per
// family.
func BenchmarkConnListenersPerFamily(b *testing.B) {
	noUnspec.Store(true)
	defer noUnspec.Store(false)
	BenchmarkConnListeners(b)
}

// TestListenersOneQueryMapped: an IPv6 socket bound to a v4-mapped
// address (::ffff:127.0.0.1) is an AF_INET6 listener in the one query of
// both families as in the per-family ones: listed once, as IPv6, after
// an IPv4 listener on the same port.
func TestListenersOneQueryMapped(t *testing.T) {
	l4, err := net.Listen("tcp4", "127.0.0.2:0")
	if err != nil {
		t.Skipf("no 127.0.0.2: %v", err)
	}
	defer l4.Close()
	port := l4.Addr().(*net.TCPAddr).Port
	fd, err := unix.Socket(unix.AF_INET6, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Skipf("no IPv6: %v", err)
	}
	defer unix.Close(fd)
	mapped := netip.MustParseAddr("::ffff:127.0.0.1")
	if err := unix.Bind(fd, &unix.SockaddrInet6{Port: port, Addr: mapped.As16()}); err != nil {
		t.Skipf("bind [%s]:%d: %v", mapped, port, err)
	}
	if err := unix.Listen(fd, 1); err != nil {
		t.Fatal(err)
	}
	c, err := Open()
	if err != nil {
		t.Skip(err)
	}
	defer c.Close()
	defer noUnspec.Store(false)
	noUnspec.Store(false)
	both, err := c.Listeners(uint16(port))
	if err != nil || noUnspec.Load() {
		t.Fatalf("one query of both families: %v (refused: %v)", err, noUnspec.Load())
	}
	noUnspec.Store(true)
	each, err := c.Listeners(uint16(port))
	if err != nil {
		t.Fatal(err)
	}
	addrs := func(ls []Listener) []string {
		var out []string
		for _, l := range ls {
			out = append(out, l.AddrPort().String())
		}
		return out
	}
	want := []string{fmt.Sprintf("127.0.0.2:%d", port), fmt.Sprintf("[%s]:%d", mapped, port)}
	if diff := cmp.Diff(want, addrs(both)); diff != "" {
		t.Errorf("one query (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(want, addrs(each)); diff != "" {
		t.Errorf("per family (-want +got):\n%s", diff)
	}
}
