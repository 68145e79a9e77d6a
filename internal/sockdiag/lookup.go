package sockdiag

import "errors"

// Lookup returns the LISTEN sockets on port (0: every port) from
// sock_diag, falling back to the net/tcp{,6} files below procRoot ("" is
// /proc) on a kernel without it.
func Lookup(procRoot string, port int) ([]Listener, error) {
	ls, err := Listeners(uint16(port))
	if errors.Is(err, ErrUnsupported) {
		return ProcListeners(procRoot, uint16(port))
	}
	return ls, err
}

// ByPort returns every TCP socket in LISTEN state, IPv4 and IPv6, by
// port: one sock_diag dump for a census of many ports.
func ByPort(procRoot string) (map[int][]Listener, error) {
	ls, err := Lookup(procRoot, 0)
	if err != nil {
		return nil, err
	}
	out := map[int][]Listener{}
	for _, l := range ls {
		out[int(l.Port)] = append(out[int(l.Port)], l)
	}
	return out, nil
}
