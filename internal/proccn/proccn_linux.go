package proccn

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"

	"golang.org/x/sys/unix"
)

// Kind is what happened to a process.
type Kind uint32

// The kinds of event a Listener reports (linux/cn_proc.h); others (uid,
// sid, ptrace…) are dropped.
const (
	Fork Kind = 0x1
	Exec Kind = 0x2
	Comm Kind = 0x200
	Exit Kind = 0x80000000
)

// Event is one process event. Pid and Tgid are the process (thread and
// thread group); for Fork they are the child and Parent, ParentTgid the
// parent; Time is when it happened on the clock of Now. An Event is a
// plain value: copies are safe for concurrent use.
type Event struct {
	Kind               Kind
	Pid, Tgid          int
	Parent, ParentTgid int
	Time               uint64
}

// Now is the time on the clock events are stamped with (the kernel's
// CLOCK_MONOTONIC, in nanoseconds: a time namespace's offset taken off):
// an event stamped at or after a Now happened after it.
func Now() uint64 {
	var ts unix.Timespec
	if unix.ClockGettime(unix.CLOCK_MONOTONIC, &ts) != nil {
		return 0
	}
	return uint64(ts.Nano() - timensOffset())
}

// timensOffset is how far this process's CLOCK_MONOTONIC is ahead of the
// kernel's, in nanoseconds: its time namespace's offset (0 in the
// initial one, or where the kernel has no time namespaces). The kernel
// stamps events with its own clock, whatever namespace reads them.
var timensOffset = sync.OnceValue(func() int64 {
	b, err := os.ReadFile("/proc/self/timens_offsets")
	if err != nil {
		return 0
	}
	return monotonicOffset(string(b))
})

// monotonicOffset reads the monotonic line of a timens_offsets file
// ("monotonic SECONDS NANOSECONDS"), in nanoseconds; 0 without one.
func monotonicOffset(s string) int64 {
	for _, line := range strings.Split(s, "\n") {
		f := strings.Fields(line)
		if len(f) != 3 || f[0] != "monotonic" {
			continue
		}
		sec, err1 := strconv.ParseInt(f[1], 10, 64)
		nsec, err2 := strconv.ParseInt(f[2], 10, 64)
		if err1 != nil || err2 != nil {
			return 0
		}
		return sec*1e9 + nsec
	}
	return 0
}

// ErrOverrun is returned by Read when the kernel dropped events because
// the listener fell behind (ENOBUFS): whoever relies on them looks for
// itself once.
var ErrOverrun = errors.New("proccn: events were lost (the listener fell behind)")

// Listener is a subscription to the proc connector. Not safe for
// concurrent use, except Close, Pause and Resume (treeevents' hub pauses
// it while its reader waits).
type Listener struct {
	f   *os.File
	buf []byte
}

// The connector's constants (linux/connector.h, linux/cn_proc.h).
const (
	cnIdxProc          = 0x1
	cnValProc          = 0x1
	procCnMcastListen  = 1
	procCnMcastIgnore  = 2
	nlmsgHdrLen        = 16
	cnMsgLen           = 20
	procEventHeaderLen = 16
)

// Listen subscribes to the proc connector. The socket is non-blocking and
// close-on-exec; Read never blocks.
func Listen() (*Listener, error) {
	fd, err := unix.Socket(unix.AF_NETLINK, unix.SOCK_DGRAM|unix.SOCK_NONBLOCK|unix.SOCK_CLOEXEC, unix.NETLINK_CONNECTOR)
	if err != nil {
		return nil, fmt.Errorf("proccn: socket: %w", err)
	}
	// A larger receive buffer: a busy machine forks in bursts.
	_ = unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_RCVBUF, 1<<20)
	// Where the kernel takes no filter, every event is read as before.
	_ = unix.SetsockoptSockFprog(fd, unix.SOL_SOCKET, unix.SO_ATTACH_FILTER, &unix.SockFprog{Len: uint16(len(eventFilter)), Filter: &eventFilter[0]})
	if err := unix.Bind(fd, &unix.SockaddrNetlink{Family: unix.AF_NETLINK, Groups: cnIdxProc}); err != nil {
		unix.Close(fd)
		return nil, fmt.Errorf("proccn: bind: %w", err)
	}
	if err := send(fd, procCnMcastListen); err != nil {
		unix.Close(fd)
		return nil, fmt.Errorf("proccn: subscribe: %w", err)
	}
	// The connector sends one event a datagram (under 100 bytes); 8 KiB
	// is netlink's usual receive size (NLMSG_GOODSIZE).
	return &Listener{f: os.NewFile(uintptr(fd), "proccn"), buf: make([]byte, 8<<10)}, nil
}

// eventFilter is a classic BPF program the kernel runs on each message
// before it is queued: it drops what parse or Tree.Note never use — a
// thread's creation (a fork whose child is not a thread group leader) or
// exit (an exit of a thread other than the leader), and the event kinds
// other than Fork, Exec, Comm and Exit (ptrace, uid, gid, sid, core
// dump, …). About half of a busy machine's events are its threads'
// (measured: 519 of 1,072 in 5 s at load 15); each was a recvfrom and a
// parse here, and took room in the receive buffer. Offsets: nlmsghdr 16,
// cn_msg 20, then proc_event (what, cpu, timestamp: 16) and its data. The
// filter's word loads are big-endian, the connector's fields host order
// (be converts the constants; equality of two fields needs none).
var eventFilter = func() []unix.SockFilter {
	be := func(v uint32) uint32 {
		var b [4]byte
		binary.NativeEndian.PutUint32(b[:], v)
		return binary.BigEndian.Uint32(b[:])
	}
	const (
		ld      = unix.BPF_LD | unix.BPF_W | unix.BPF_ABS
		jeqK    = unix.BPF_JMP | unix.BPF_JEQ | unix.BPF_K
		jeqX    = unix.BPF_JMP | unix.BPF_JEQ | unix.BPF_X
		tax     = unix.BPF_MISC | unix.BPF_TAX
		ret     = unix.BPF_RET | unix.BPF_K
		what    = nlmsgHdrLen + cnMsgLen
		data    = what + procEventHeaderLen
		keep    = 0xffffffff
		nothing = 0
	)
	return []unix.SockFilter{
		{Code: ld, K: what},                             // 0
		{Code: jeqK, Jt: 11, K: be(uint32(Exec))},       // 1: keep
		{Code: jeqK, Jt: 10, K: be(uint32(Comm))},       // 2: keep
		{Code: jeqK, Jt: 1, K: be(uint32(Fork))},        // 3: to 5
		{Code: jeqK, Jt: 4, Jf: 9, K: be(uint32(Exit))}, // 4: to 9, else drop
		{Code: ld, K: data + 12},                        // 5: fork's child_tgid
		{Code: tax},                                     // 6
		{Code: ld, K: data + 8},                         // 7: child_pid
		{Code: jeqX, Jt: 4, Jf: 5},                      // 8: keep a process, drop a thread
		{Code: ld, K: data + 4},                         // 9: exit's process_tgid
		{Code: tax},                                     // 10
		{Code: ld, K: data},                             // 11: process_pid
		{Code: jeqX, Jt: 0, Jf: 1},                      // 12: keep the leader, drop a thread
		{Code: ret, K: keep},                            // 13
		{Code: ret, K: nothing},                         // 14
	}
}()

// send sends the connector the multicast operation op.
func send(fd int, op uint32) error {
	msg := make([]byte, nlmsgHdrLen+cnMsgLen+4)
	ne := binary.NativeEndian
	ne.PutUint32(msg[0:], uint32(len(msg)))
	ne.PutUint16(msg[4:], unix.NLMSG_DONE)
	ne.PutUint32(msg[12:], uint32(os.Getpid()))
	cn := msg[nlmsgHdrLen:]
	ne.PutUint32(cn[0:], cnIdxProc)
	ne.PutUint32(cn[4:], cnValProc)
	ne.PutUint16(cn[16:], 4)
	ne.PutUint32(cn[cnMsgLen:], op)
	return unix.Sendto(fd, msg, 0, &unix.SockaddrNetlink{Family: unix.AF_NETLINK})
}

// Fd is the socket's descriptor, readable when events are queued (for
// poll(2)).
func (l *Listener) Fd() int { return int(l.f.Fd()) }

// Read reports every queued event to f and returns when none is left
// (nil), or ErrOverrun after the events still queued when the kernel
// dropped some. It never blocks.
func (l *Listener) Read(f func(Event)) error { return l.read(f, false) }

// Wait is Read that first waits, parked in the runtime's poller (no
// thread and no timer), until at least one event is queued or the
// listener is closed (os.ErrClosed).
func (l *Listener) Wait(f func(Event)) error { return l.read(f, true) }

func (l *Listener) read(f func(Event), wait bool) error {
	rc, err := l.f.SyscallConn()
	if err != nil {
		return err
	}
	var overrun bool
	var rerr error
	drain := func(fd uintptr) bool {
		got := false
		for {
			// A read is a recv without flags; Recvfrom also allocated
			// the sender's address, which is the kernel's.
			n, err := unix.Read(int(fd), l.buf)
			switch {
			case errors.Is(err, unix.EINTR):
				continue
			case errors.Is(err, unix.EAGAIN):
				return got || !wait
			case errors.Is(err, unix.ENOBUFS):
				overrun, got = true, true
				continue
			case err != nil:
				rerr = err
				return true
			}
			got = true
			parse(l.buf[:n], f)
		}
	}
	if wait {
		err = rc.Read(drain)
	} else {
		err = rc.Control(func(fd uintptr) { drain(fd) })
	}
	switch {
	case err != nil:
		return err
	case rerr != nil:
		return fmt.Errorf("proccn: read: %w", rerr)
	case overrun:
		return ErrOverrun
	}
	return nil
}

// parse reports the events of one datagram of netlink messages to f.
func parse(b []byte, f func(Event)) {
	ne := binary.NativeEndian
	for len(b) >= nlmsgHdrLen {
		mlen := int(ne.Uint32(b[0:]))
		if mlen < nlmsgHdrLen || mlen > len(b) {
			return
		}
		m := b[nlmsgHdrLen:mlen]
		b = b[min((mlen+3)&^3, len(b)):]
		if len(m) < cnMsgLen+procEventHeaderLen || ne.Uint32(m[0:]) != cnIdxProc || ne.Uint32(m[4:]) != cnValProc {
			continue
		}
		ev := m[cnMsgLen:]
		data := ev[procEventHeaderLen:]
		u := func(i int) int {
			if len(data) < 4*(i+1) {
				return 0
			}
			return int(ne.Uint32(data[4*i:]))
		}
		at := ne.Uint64(ev[8:])
		switch Kind(ne.Uint32(ev[0:])) {
		case Fork:
			f(Event{Kind: Fork, Parent: u(0), ParentTgid: u(1), Pid: u(2), Tgid: u(3), Time: at})
		case Exec:
			f(Event{Kind: Exec, Pid: u(0), Tgid: u(1), Time: at})
		case Comm:
			f(Event{Kind: Comm, Pid: u(0), Tgid: u(1), Time: at})
		case Exit:
			f(Event{Kind: Exit, Pid: u(0), Tgid: u(1), Time: at})
		}
	}
}

// Pause stops the kernel from queueing events for the listener (it
// leaves the connector's multicast group) until Resume; events already
// queued are still read.
func (l *Listener) Pause() error { return l.membership(unix.NETLINK_DROP_MEMBERSHIP) }

// Resume queues events for the listener again after Pause: every event
// from its return on.
func (l *Listener) Resume() error { return l.membership(unix.NETLINK_ADD_MEMBERSHIP) }

func (l *Listener) membership(opt int) error {
	rc, err := l.f.SyscallConn()
	if err != nil {
		return err
	}
	var serr error
	if err := rc.Control(func(fd uintptr) { serr = unix.SetsockoptInt(int(fd), unix.SOL_NETLINK, opt, cnIdxProc) }); err != nil {
		return err
	}
	if serr != nil {
		return fmt.Errorf("proccn: membership: %w", serr)
	}
	return nil
}

// Close unsubscribes and closes the socket.
func (l *Listener) Close() error {
	rc, err := l.f.SyscallConn()
	if err == nil {
		rc.Control(func(fd uintptr) { send(int(fd), procCnMcastIgnore) })
	}
	return l.f.Close()
}

// Tree follows the processes descended from its roots through events:
// a process a member forks is a member until it exits. Threads are not
// members. Not safe for concurrent use.
type Tree struct {
	members map[int]bool
}

// NewTree follows roots and what they fork from now on.
func NewTree(roots ...int) *Tree {
	t := &Tree{members: map[int]bool{}}
	for _, r := range roots {
		t.members[r] = true
	}
	return t
}

// Add follows pid too (a process found by other means).
func (t *Tree) Add(pid int) { t.members[pid] = true }

// Len is how many processes the tree follows.
func (t *Tree) Len() int { return len(t.members) }

// Note applies e and reports whether it changed the tree: a member
// forked a process, exec'd, renamed itself (comm) or exited.
func (t *Tree) Note(e Event) bool {
	switch e.Kind {
	case Fork:
		if t.members[e.ParentTgid] && e.Pid == e.Tgid {
			t.members[e.Tgid] = true
			return true
		}
	case Exec, Comm:
		return t.members[e.Tgid]
	case Exit:
		if t.members[e.Tgid] && e.Pid == e.Tgid {
			delete(t.members, e.Tgid)
			return true
		}
	}
	return false
}
