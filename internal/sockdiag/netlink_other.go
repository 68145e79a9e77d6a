//go:build !linux

package sockdiag

// Listeners needs Linux's sock_diag; elsewhere it is ErrUnsupported.
func Listeners(port uint16) ([]Listener, error) { return nil, ErrUnsupported }
