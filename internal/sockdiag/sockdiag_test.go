package sockdiag

import (
	"net"
	"net/netip"
	"os"
	"testing"

	"github.com/childproof/childproof/proc"
	"github.com/google/go-cmp/cmp"
)

func listen(t testing.TB, network, addr string) (net.Listener, uint16) {
	t.Helper()
	ln, err := net.Listen(network, addr)
	if err != nil {
		t.Skipf("cannot listen on %s %s: %v", network, addr, err)
	}
	t.Cleanup(func() { ln.Close() })
	return ln, uint16(ln.Addr().(*net.TCPAddr).Port)
}

func TestListenersBothFamilies(t *testing.T) {
	cases := []struct {
		network, addr string
		want          netip.Addr
	}{
		{"tcp4", "127.0.0.1:0", netip.MustParseAddr("127.0.0.1")},
		{"tcp6", "[::1]:0", netip.MustParseAddr("::1")},
		{"tcp", ":0", netip.IPv6Unspecified()}, // Go's dual-stack socket is one AF_INET6 [::]
	}
	for _, c := range cases {
		t.Run(c.network+" "+c.addr, func(t *testing.T) {
			_, port := listen(t, c.network, c.addr)
			got, err := Listeners(port)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != 1 {
				t.Fatalf("Listeners(%d) = %v, want one", port, got)
			}
			l := got[0]
			if l.Addr != c.want || l.Port != port || l.UID != uint32(os.Getuid()) {
				t.Errorf("listener = %v, want %v:%d uid %d", l, c.want, port, os.Getuid())
			}
			owners := proc.Default.FindSocketOwners(l.Inode, []int{os.Getpid()})
			if !cmp.Equal(owners, []int{os.Getpid()}) {
				t.Errorf("inode %d not in our fds (owners %v)", l.Inode, owners)
			}
			// The /proc/net fallback agrees.
			fb, err := ProcListeners("", port)
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(got, fb, cmp.Comparer(func(a, b netip.Addr) bool { return a == b })); d != "" {
				t.Errorf("sock_diag and /proc/net disagree (-diag +proc):\n%s", d)
			}
		})
	}
}

func TestListenersFilterAndClosed(t *testing.T) {
	ln, port := listen(t, "tcp4", "127.0.0.1:0")
	_, other := listen(t, "tcp4", "127.0.0.1:0")
	got, err := Listeners(port)
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range got {
		if l.Port != port {
			t.Errorf("kernel filter let through port %d (other is %d)", l.Port, other)
		}
	}
	// An established connection is not a listener.
	c, err := net.Dial("tcp4", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	got, _ = Listeners(port)
	if len(got) != 1 {
		t.Errorf("with a connection: %v, want one listener", got)
	}
	ln.Close()
	got, _ = Listeners(port)
	if len(got) != 0 {
		t.Errorf("after close: %v, want none", got)
	}
	all, err := Listeners(0)
	if err != nil || len(all) == 0 {
		t.Errorf("Listeners(0) = %v, %v; want every listener", all, err)
	}
}

func TestParseProcNetTCP(t *testing.T) {
	v4 := `  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
   0: 0100007F:1F90 00000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 12345 1 0000000000000000 100 0 0 10 0
   1: 0100007F:1F90 0100007F:D2F0 01 00000000:00000000 00:00000000 00000000  1000        0 12346 1 0000000000000000 100 0 0 10 0
`
	got, err := ParseProcNetTCP([]byte(v4))
	if err != nil {
		t.Fatal(err)
	}
	want := []Listener{{Addr: netip.MustParseAddr("127.0.0.1"), Port: 8080, UID: 1000, Inode: 12345}}
	if d := cmp.Diff(want, got, cmp.Comparer(func(a, b netip.Addr) bool { return a == b })); d != "" {
		t.Errorf("v4 (-want +got):\n%s", d)
	}
	v6 := `  sl  local_address                         remote_address                        st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
   0: 00000000000000000000000001000000:1F91 00000000000000000000000000000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 999 1 0000000000000000 100 0 0 10 0
`
	got, err = ParseProcNetTCP([]byte(v6))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].Addr != netip.MustParseAddr("::1") || got[0].Port != 8081 || got[0].Inode != 999 {
		t.Errorf("v6 = %v", got)
	}
	if _, err := ParseProcNetTCP([]byte("sl\n 0: zz:1 0 0A\n")); err == nil {
		t.Error("short line: want error")
	}
}

func FuzzParseProcNetTCP(f *testing.F) {
	f.Add([]byte("  sl local\n   0: 0100007F:1F90 00000000:0000 0A 00000000:00000000 00:00000000 00000000  1000 0 12345 1\n"))
	f.Add([]byte("0: 00000000000000000000000001000000:1F91 0:0 0A 0 0 0 0 0 999\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		ls, err := ParseProcNetTCP(b)
		if err != nil {
			return
		}
		for _, l := range ls {
			if !l.Addr.IsValid() {
				t.Fatalf("invalid address from %q", b)
			}
		}
	})
}

func BenchmarkListeners(b *testing.B) {
	_, port := listen(b, "tcp", ":0")
	for b.Loop() {
		if ls, err := Listeners(port); err != nil || len(ls) != 1 {
			b.Fatal(ls, err)
		}
	}
}

func BenchmarkConnListeners(b *testing.B) {
	_, port := listen(b, "tcp", ":0")
	c, err := Open()
	if err != nil {
		b.Skip(err)
	}
	defer c.Close()
	for b.Loop() {
		if ls, err := c.Listeners(port); err != nil || len(ls) != 1 {
			b.Fatal(ls, err)
		}
	}
}

func BenchmarkProcListeners(b *testing.B) {
	_, port := listen(b, "tcp", ":0")
	for b.Loop() {
		if ls, err := ProcListeners("", port); err != nil || len(ls) != 1 {
			b.Fatal(ls, err)
		}
	}
}

func TestListenerMatches(t *testing.T) {
	tests := []struct {
		listener, declared string
		want               bool
	}{
		{"127.0.0.1", "127.0.0.1", true},
		{"::1", "127.0.0.1", true},
		{"::ffff:127.0.0.1", "127.0.0.1", true},
		{"::", "0.0.0.0", true},
		{"0.0.0.0", "::", true},
		{"0.0.0.0", "127.0.0.1", false},
		{"::", "127.0.0.1", false},
		{"127.0.0.1", "0.0.0.0", false},
		{"10.0.0.5", "127.0.0.1", false},
		{"10.0.0.5", "10.0.0.5", true},
	}
	for _, tt := range tests {
		l := Listener{Addr: netip.MustParseAddr(tt.listener)}
		if got := l.Matches(netip.MustParseAddr(tt.declared)); got != tt.want {
			t.Errorf("%s matches %s = %v, want %v", tt.listener, tt.declared, got, tt.want)
		}
	}
}

// TestListenersOrFallback: without a kept socket the fallback answers.
func TestListenersOrFallback(t *testing.T) {
	var c *Conn
	want := []Listener{{Inode: 7}}
	got, err := c.ListenersOr(80, func() ([]Listener, error) { return want, nil })
	if err != nil || len(got) != 1 || got[0].Inode != 7 {
		t.Errorf("ListenersOr on no socket = %v, %v; want the fallback's %v", got, err, want)
	}
}
