package inspect

import (
	"errors"

	"github.com/childproof/childproof/internal/sockdiag"
	"github.com/childproof/childproof/proc"
)

// Listeners returns the LISTEN sockets on port (0: every port) from
// sock_diag, falling back to p's net/tcp{,6} on a kernel without it.
func Listeners(p proc.FS, port int) ([]sockdiag.Listener, error) {
	ls, err := sockdiag.Listeners(uint16(port))
	if errors.Is(err, sockdiag.ErrUnsupported) {
		return sockdiag.ProcListeners(p.Root, uint16(port))
	}
	return ls, err
}

// AllListeners returns every TCP socket in LISTEN state, IPv4 and IPv6,
// by port: one sock_diag dump for a census of many ports.
func AllListeners(p proc.FS) (map[int][]sockdiag.Listener, error) {
	ls, err := Listeners(p, 0)
	if err != nil {
		return nil, err
	}
	out := map[int][]sockdiag.Listener{}
	for _, l := range ls {
		out[int(l.Port)] = append(out[int(l.Port)], l)
	}
	return out, nil
}
