package probe

import (
	"context"
	"fmt"
	"net"
	"os"
	"runtime"
	"strconv"

	"golang.org/x/sys/unix"
)

// dialIn dials addr with a socket made in pid's network namespace: the
// dial runs on a goroutine locked to a thread that joins the namespace
// for it. A thread that cannot go back is never let go, so it ends with
// that goroutine and no other code runs in the namespace.
func dialIn(ctx context.Context, pid int, addr string) (net.Conn, error) {
	type dialed struct {
		c   net.Conn
		err error
	}
	ch := make(chan dialed, 1)
	go func() {
		runtime.LockOSThread()
		c, back, err := dialInLocked(ctx, pid, addr)
		if back {
			runtime.UnlockOSThread()
		}
		ch <- dialed{c, err}
	}()
	d := <-ch
	return d.c, d.err
}

func dialInLocked(ctx context.Context, pid int, addr string) (c net.Conn, back bool, err error) {
	target, err := os.Open("/proc/" + strconv.Itoa(pid) + "/ns/net")
	if err != nil {
		return nil, true, fmt.Errorf("connect %s in the network namespace of pid %d: %w", addr, pid, err)
	}
	defer target.Close()
	home, err := os.Open("/proc/thread-self/ns/net")
	if err != nil {
		return nil, true, fmt.Errorf("connect %s: own network namespace: %w", addr, err)
	}
	defer home.Close()
	if err := unix.Setns(int(target.Fd()), unix.CLONE_NEWNET); err != nil {
		return nil, true, fmt.Errorf("connect %s in the network namespace of pid %d: %w", addr, pid, os.NewSyscallError("setns", err))
	}
	d := probeDialer
	c, err = d.DialContext(ctx, "tcp", addr)
	if e := unix.Setns(int(home.Fd()), unix.CLONE_NEWNET); e != nil {
		if c != nil {
			c.Close()
		}
		return nil, false, fmt.Errorf("connect %s: back to own network namespace: %w", addr, os.NewSyscallError("setns", e))
	}
	return c, true, err
}
