//go:build !linux

package freeport

import (
	"fmt"
	"net"
)

// bindable reports whether nothing listens on 127.0.0.1:port.
func bindable(port int) bool {
	ln, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", port))
	if err != nil {
		return false
	}
	ln.Close()
	return true
}
