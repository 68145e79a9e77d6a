package freeport

import (
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"strconv"
	"strings"
	"sync"
)

// MinPort is the lowest port FreePort picks (above the well-known and most
// registered service ports).
const MinPort = 20000

// FreePort returns a port below the kernel's ephemeral range
// (net.ipv4.ip_local_port_range, 32768–60999 by default): the kernel never
// hands those to a connect() or to a listen on port 0, so no client socket
// of a concurrent test can take it before the launch binds it. When that
// range is empty, a port the kernel offers for :0 that was not handed out.
func FreePort() (int, error) {
	if hi := EphemeralLow() - 1; hi > MinPort {
		if port, ok := FreePortIn(MinPort, hi); ok {
			return port, nil
		}
	}
	mu.Lock()
	defer mu.Unlock()
	for range 1000 {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return 0, fmt.Errorf("free port: %w", err)
		}
		port := ln.Addr().(*net.TCPAddr).Port
		ln.Close()
		if !handed[port] && reserve(port) {
			handed[port] = true
			return port, nil
		}
	}
	return 0, fmt.Errorf("free port: every port the kernel offered was handed out already")
}

// FreePortIn picks a port of lo–hi (inclusive) that nothing listens on and
// that was not handed out: at random first, then every one in turn.
func FreePortIn(lo, hi int) (int, bool) {
	mu.Lock()
	defer mu.Unlock()
	try := func(port int) bool {
		if handed[port] {
			return false
		}
		if !bindable(port) {
			return false
		}
		if !reserve(port) {
			return false
		}
		handed[port] = true
		return true
	}
	n := hi - lo + 1
	for range min(1000, n) {
		if port := lo + rand.IntN(n); try(port) {
			return port, true
		}
	}
	if n <= 1<<16 {
		start := rand.IntN(n)
		for i := range n {
			if port := lo + (start+i)%n; try(port) {
				return port, true
			}
		}
	}
	return 0, false
}

// EphemeralLow is the first port of the kernel's ephemeral range.
func EphemeralLow() int {
	b, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range")
	if err != nil {
		return 32768
	}
	f := strings.Fields(string(b))
	if len(f) != 2 {
		return 32768
	}
	n, err := strconv.Atoi(f[0])
	if err != nil {
		return 32768
	}
	return n
}

var (
	mu     sync.Mutex
	handed = map[int]bool{}
	// held are the reservations of the ports handed out, open until the
	// process exits or Release.
	held []net.Listener
)

// reserve claims port for this process against every other one on the
// machine (go test ./... runs several packages' binaries at once): a
// listener on the abstract unix socket "@childproof-port-N", which the
// kernel releases when the process exits, however it exits; no file is
// left. false: another process holds it. Called with mu held.
func reserve(port int) bool {
	ln, err := net.Listen("unix", fmt.Sprintf("@childproof-port-%d", port))
	if err != nil {
		return false
	}
	held = append(held, ln)
	return true
}

// FreeRange returns the first of n consecutive ports below the ephemeral
// range (anywhere above MinPort when it has no room) that nothing listens on and that were not handed out, and hands
// out every one of them: a later FreePort never returns a port of the
// range (a SLURM SrunPortRange, a server's worker ports).
func FreeRange(n int) (int, error) {
	hi := EphemeralLow() - 1
	if hi-MinPort+1 < n {
		// No room below the ephemeral range: anywhere above MinPort.
		hi = 65535
	}
	if n < 1 || hi-MinPort+1 < n {
		return 0, fmt.Errorf("free port range: no %d ports between %d and %d", n, MinPort, hi)
	}
	mu.Lock()
	defer mu.Unlock()
	free := func(port int) bool {
		if handed[port] {
			return false
		}
		return bindable(port)
	}
	for range 1000 {
		lo := MinPort + rand.IntN(hi-MinPort+2-n)
		ok := true
		for p := lo; p < lo+n && ok; p++ {
			ok = free(p)
		}
		if !ok {
			continue
		}
		var mine []int
		for p := lo; p < lo+n && ok; p++ {
			if ok = reserve(p); ok {
				mine = append(mine, p)
			}
		}
		if !ok {
			// Another test binary holds one: give back what was taken.
			for _, p := range mine {
				release(p)
			}
			continue
		}
		for p := lo; p < lo+n; p++ {
			handed[p] = true
		}
		return lo, nil
	}
	return 0, fmt.Errorf("free port range: no %d consecutive free ports found", n)
}

// Release gives back this process's reservation of port (a no-op for a
// port it does not hold): other processes may take it from now on. The
// port is still never handed out again in this process.
func Release(port int) {
	mu.Lock()
	defer mu.Unlock()
	release(port)
}

// release gives back the reservation of port. Called with mu held.
func release(port int) {
	name := fmt.Sprintf("@childproof-port-%d", port)
	for i, ln := range held {
		if ln.Addr().String() == name {
			ln.Close()
			held = append(held[:i], held[i+1:]...)
			return
		}
	}
}
