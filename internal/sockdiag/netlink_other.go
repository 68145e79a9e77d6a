//go:build !linux

package sockdiag

// Listeners needs Linux's sock_diag; elsewhere it is ErrUnsupported.
func Listeners(port uint16) ([]Listener, error) { return nil, ErrUnsupported }

// Conn is a kept sock_diag socket; off Linux there is none. Not safe for
// concurrent use.
type Conn struct{}

// Open is ErrUnsupported off Linux.
func Open() (*Conn, error) { return nil, ErrUnsupported }

// Listeners is ErrUnsupported off Linux.
func (c *Conn) Listeners(port uint16) ([]Listener, error) { return nil, ErrUnsupported }

// Close does nothing off Linux.
func (c *Conn) Close() error { return nil }
