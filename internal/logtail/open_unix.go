//go:build unix

package logtail

import "syscall"

// noFollow makes open refuse a symlink and not block on a FIFO.
const noFollow = syscall.O_NOFOLLOW | syscall.O_NONBLOCK
