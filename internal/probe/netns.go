package probe

import (
	"context"
	"net"

	"github.com/childproof/childproof/internal/sockdiag"
)

type netnsKey struct{}

// FromNetNSOf returns ctx with probes made from the network namespace of
// pid when it is not the caller's (procRoot "" is /proc): a worker in a
// container, a pod or a test's namespace is reached at its loopback only
// from there.
func FromNetNSOf(ctx context.Context, procRoot string, pid int) context.Context {
	if pid <= 0 || !sockdiag.OtherNetNS(procRoot, pid) {
		return ctx
	}
	return context.WithValue(ctx, netnsKey{}, pid)
}

// probeDialer dials a probe's connection: without TCP keep-alive, which
// a connection closed within the probe never uses (four setsockopt calls
// a probe fewer).
var probeDialer = net.Dialer{KeepAlive: -1}

// dial connects to addr from the network namespace ctx names, else from
// the caller's.
func dial(ctx context.Context, addr string) (net.Conn, error) {
	if pid, ok := ctx.Value(netnsKey{}).(int); ok {
		return dialIn(ctx, pid, addr)
	}
	d := probeDialer
	return d.DialContext(ctx, "tcp", addr)
}
