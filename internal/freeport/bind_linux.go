package freeport

import "syscall"

// bindable reports whether 127.0.0.1:port binds without SO_REUSEADDR,
// as a server that does not set it (a plain Python socket) binds: nothing
// listens on the port and no connection of it lingers in TIME_WAIT. A
// listen from Go sets SO_REUSEADDR, so it would pass over such a port.
func bindable(port int) bool {
	fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		return false
	}
	defer syscall.Close(fd)
	return syscall.Bind(fd, &syscall.SockaddrInet4{Port: port, Addr: [4]byte{127, 0, 0, 1}}) == nil
}
