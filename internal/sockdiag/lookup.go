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

// ListenersOr is c.Listeners(port), or fallback's answer where there is
// no kept socket (c nil) or its query failed.
func (c *Conn) ListenersOr(port uint16, fallback func() ([]Listener, error)) ([]Listener, error) {
	if c != nil {
		if ls, err := c.Listeners(port); err == nil {
			return ls, nil
		}
	}
	return fallback()
}
