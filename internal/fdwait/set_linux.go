package fdwait

import (
	"context"
	"errors"
	"os"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// pollSlice bounds one poll(2) of the fallback, so that it notices ctx.
const pollSlice = 50 * time.Millisecond

// Set is the fds a wait watches, held in an epoll instance the runtime's
// network poller waits on (or, where it cannot, polled with poll(2)).
// Not safe for concurrent use.
type Set struct {
	fds  []int
	dups []int           // the duplicates of fds the epoll instance holds
	ep   *os.File        // the epoll instance; nil: poll(2)
	epfd int             // ep's fd (os.File.Fd would make it blocking)
	rc   syscall.RawConn // ep's
	evs  [8]unix.EpollEvent
}

// New makes a Set of the fds that are not negative; the caller closes
// it. The epoll instance holds duplicates of them, so that a wait goes
// on when the caller closes one meanwhile (a pidfd, at a launch's end).
func New(fds ...int) *Set {
	s := &Set{}
	for _, fd := range fds {
		if fd >= 0 {
			s.fds = append(s.fds, fd)
		}
	}
	if !s.epoll() {
		s.Close()
	}
	return s
}

// epoll makes a non-blocking epoll instance holding duplicates of the
// fds, level-triggered, registered with the runtime's poller; it reports
// whether every step went well.
func (s *Set) epoll() bool {
	epfd, err := unix.EpollCreate1(unix.EPOLL_CLOEXEC)
	if err != nil {
		return false
	}
	if err := unix.SetNonblock(epfd, true); err != nil {
		unix.Close(epfd)
		return false
	}
	s.ep, s.epfd = os.NewFile(uintptr(epfd), "epoll"), epfd
	for _, fd := range s.fds {
		dup, err := unix.FcntlInt(uintptr(fd), unix.F_DUPFD_CLOEXEC, 0)
		if err != nil {
			return false
		}
		s.dups = append(s.dups, dup)
		ev := unix.EpollEvent{Events: unix.EPOLLIN, Fd: int32(dup)}
		if err := unix.EpollCtl(epfd, unix.EPOLL_CTL_ADD, dup, &ev); err != nil {
			return false
		}
	}
	// A deadline is refused by a file the poller did not take.
	if err := s.ep.SetReadDeadline(time.Time{}); err != nil {
		return false
	}
	s.rc, err = s.ep.SyscallConn()
	return err == nil
}

// Wait waits until one of the Set's fds is readable, deadline passes
// (the zero time: never) or ctx ends; it reports whether one is
// readable then.
func (s *Set) Wait(ctx context.Context, deadline time.Time) bool {
	if s.ep == nil {
		return s.poll(ctx, deadline)
	}
	if s.ready() {
		return true
	}
	if ctx.Err() != nil || !deadline.IsZero() && !time.Now().Before(deadline) {
		return false
	}
	if err := s.ep.SetReadDeadline(deadline); err != nil {
		return s.poll(ctx, deadline)
	}
	// The function that cuts the wait short for ctx is done before the
	// next wait sets its own deadline.
	cut := make(chan struct{})
	stop := context.AfterFunc(ctx, func() {
		defer close(cut)
		s.ep.SetReadDeadline(time.Unix(1, 0))
	})
	defer func() {
		if !stop() {
			<-cut
		}
	}()
	readable := false
	err := s.rc.Read(func(uintptr) bool {
		readable = s.ready()
		return readable
	})
	if err != nil && !readable && !errors.Is(err, os.ErrDeadlineExceeded) {
		return s.poll(ctx, deadline)
	}
	// One that became readable as the wait ended counts.
	return readable || s.ready()
}

// ready reports whether one of the fds is readable now.
func (s *Set) ready() bool {
	for {
		n, err := unix.EpollWait(s.epfd, s.evs[:], 0)
		if err == unix.EINTR {
			continue
		}
		return err == nil && n > 0
	}
}

// poll is Wait with poll(2), in slices of at most pollSlice.
func (s *Set) poll(ctx context.Context, deadline time.Time) bool {
	pfds := make([]unix.PollFd, len(s.fds))
	for {
		for i, fd := range s.fds {
			pfds[i] = unix.PollFd{Fd: int32(fd), Events: unix.POLLIN}
		}
		ms := 0
		if ctx.Err() == nil {
			d := pollSlice
			if !deadline.IsZero() {
				d = min(time.Until(deadline), pollSlice)
			}
			ms = int((d + time.Millisecond - 1) / time.Millisecond)
		}
		n, err := unix.Poll(pfds, max(ms, 0))
		if err == nil && n > 0 {
			return true
		}
		if ms <= 0 {
			return false
		}
	}
}

// Close releases the Set's epoll instance and duplicates; the caller's
// fds stay open (nil: nothing). A closed Set waits with poll(2).
func (s *Set) Close() {
	if s == nil {
		return
	}
	if s.ep != nil {
		s.ep.Close()
		s.ep = nil
	}
	for _, fd := range s.dups {
		unix.Close(fd)
	}
	s.dups = nil
}
