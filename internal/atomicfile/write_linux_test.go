package atomicfile

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// TestWriteTakesNothing writes into a FUSE file system whose files take
// no byte of a write and report no error (direct I/O, a write answered
// with size 0: write(2) returns 0). Write must fail as (*os.File).Write
// does, with io.ErrUnexpectedEOF, not loop for ever.
func TestWriteTakesNothing(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("mounting a FUSE file system needs root")
	}
	fd, err := unix.Open("/dev/fuse", unix.O_RDWR|unix.O_CLOEXEC, 0)
	if err != nil {
		t.Skipf("no /dev/fuse: %v", err)
	}
	dir := t.TempDir()
	opts := fmt.Sprintf("fd=%d,rootmode=40000,user_id=0,group_id=0", fd)
	if err := unix.Mount("childproof-test", dir, "fuse", unix.MS_NOSUID|unix.MS_NODEV, opts); err != nil {
		unix.Close(fd)
		t.Skipf("cannot mount a FUSE file system: %v", err)
	}
	go serveZeroWrites(fd)
	t.Cleanup(func() {
		unix.Unmount(dir, unix.MNT_DETACH)
		unix.Close(fd) // aborts the connection: a write still going fails
	})
	done := make(chan error, 1)
	go func() { done <- Write(filepath.Join(dir, "f"), []byte("data"), 0o600) }()
	select {
	case err := <-done:
		if !errors.Is(err, io.ErrUnexpectedEOF) {
			t.Errorf("Write: %v, want io.ErrUnexpectedEOF", err)
		}
		var pe *os.PathError
		if !errors.As(err, &pe) || pe.Op != "write" {
			t.Errorf("Write: %#v, want a *fs.PathError of op write", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("Write did not return in 20 s: it loops on a write that takes nothing")
	}
}

// serveZeroWrites answers the FUSE requests on fd for a root directory
// where every name is new, a file is created with direct I/O, and a
// write takes nothing. It returns when fd is closed.
func serveZeroWrites(fd int) {
	const (
		opLookup  = 1
		opForget  = 2
		opGetattr = 3
		opWrite   = 16
		opRelease = 18
		opFlush   = 25
		opInit    = 26
		opUnlink  = 10
		opCreate  = 35
		opIntr    = 36
		opBForget = 42
	)
	ne := binary.NativeEndian
	attr := func(ino uint64, mode uint32) []byte {
		a := make([]byte, 88) // fuse_attr
		ne.PutUint64(a[0:], ino)
		ne.PutUint32(a[60:], mode)
		ne.PutUint32(a[64:], 1) // nlink
		ne.PutUint32(a[80:], 4096)
		return a
	}
	buf := make([]byte, 1<<20+4096)
	for {
		n, err := unix.Read(fd, buf)
		if err == unix.EINTR || err == unix.ENOENT {
			continue
		}
		if err != nil || n < 40 {
			return
		}
		op, unique := ne.Uint32(buf[4:]), ne.Uint64(buf[8:])
		reply := func(errno int32, payload ...[]byte) {
			out := make([]byte, 16)
			for _, p := range payload {
				out = append(out, p...)
			}
			ne.PutUint32(out[0:], uint32(len(out)))
			ne.PutUint32(out[4:], uint32(errno))
			ne.PutUint64(out[8:], unique)
			unix.Write(fd, out)
		}
		switch op {
		case opForget, opBForget, opIntr:
			// no answer
		case opInit:
			out := make([]byte, 24) // fuse_init_out of protocol 7.12
			ne.PutUint32(out[0:], 7)
			ne.PutUint32(out[4:], 12)
			ne.PutUint32(out[20:], 1<<20)
			reply(0, out)
		case opGetattr:
			out := make([]byte, 16) // attr_valid, attr_valid_nsec, dummy
			reply(0, out, attr(ne.Uint64(buf[16:]), unix.S_IFDIR|0o755))
		case opLookup:
			reply(-int32(unix.ENOENT))
		case opCreate:
			entry := make([]byte, 40) // nodeid, generation, valid times
			ne.PutUint64(entry[0:], 2)
			open := make([]byte, 16)  // fh, open_flags, padding
			ne.PutUint32(open[8:], 1) // FOPEN_DIRECT_IO
			reply(0, entry, attr(2, unix.S_IFREG|0o600), open)
		case opWrite:
			reply(0, make([]byte, 8)) // size 0
		case opFlush, opRelease, opUnlink:
			reply(0)
		default:
			reply(-int32(unix.ENOSYS))
		}
	}
}
