package wakeup

import (
	"sync"

	"golang.org/x/sys/unix"
)

// Wakeup is an eventfd that readiness waits poll beside the worker's
// pidfd: it is written each time the launched tree prints a line. Safe
// for concurrent use.
type Wakeup struct {
	mu sync.Mutex
	fd int // -1: closed, or none
}

// New makes a Wakeup (one that never rings when no eventfd can be had).
func New() *Wakeup {
	fd, err := unix.Eventfd(0, unix.EFD_NONBLOCK|unix.EFD_CLOEXEC)
	if err != nil {
		fd = -1
	}
	return &Wakeup{fd: fd}
}

// Ring wakes a wait (nil or closed: nothing).
func (w *Wakeup) Ring() {
	if w == nil {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.fd >= 0 {
		one := [8]byte{1}
		unix.Write(w.fd, one[:])
	}
}

// Drain takes what rang, reporting whether anything did.
func (w *Wakeup) Drain() bool {
	if w == nil {
		return false
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.fd < 0 {
		return false
	}
	var b [8]byte
	n, _ := unix.Read(w.fd, b[:])
	return n == 8
}

// PollFd is the fd a wait polls, or -1.
func (w *Wakeup) PollFd() int {
	if w == nil {
		return -1
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.fd
}

// Close closes the eventfd (nil or closed: nothing).
func (w *Wakeup) Close() {
	if w == nil {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.fd >= 0 {
		unix.Close(w.fd)
		w.fd = -1
	}
}
