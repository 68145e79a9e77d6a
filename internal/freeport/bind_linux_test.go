package freeport

import (
	"net"
	"testing"
)

// TestTimeWaitNotFree: a port whose server closed a connection first (its
// end lingers in TIME_WAIT) is not handed out: a server that binds without
// SO_REUSEADDR, as a plain Python socket does, would fail on it with
// "Address already in use" (realservers' TestThreadExec did, once, in CI).
func TestTimeWaitNotFree(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0") // a fixture socket, not a port handed to a server
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	c, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	s, err := ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	s.Close() // the server's end closes first: it goes to TIME_WAIT
	buf := make([]byte, 1)
	c.Read(buf) // the FIN arrived
	c.Close()
	ln.Close()
	if l2, err := net.Listen("tcp", ln.Addr().String()); err != nil {
		t.Skipf("Go's own listen (SO_REUSEADDR) fails too, nothing to tell apart: %v", err)
	} else {
		l2.Close()
	}
	if got, ok := FreePortIn(port, port); ok {
		t.Errorf("FreePortIn(%d, %d) = %d, true; want false: the port has a connection in TIME_WAIT", port, port, got)
	}
}
