package logrelay

import (
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"
	"unsafe"

	"github.com/childproof/childproof/redact"
)

// EndSignal asks the relay to end: it writes what the pipe holds at that
// moment to the log (masked, as always) without waiting for more, and
// exits 0. childproof sends it once the launch's tree is gone but the
// pipe is still held (a process that escaped the tree keeps its write
// end), so that the relay never outlives its launch and the log still
// gets the last bytes the tree wrote.
// (Linux only: the relay runs only there.)
const EndSignal = syscall.SIGUSR2

// Run is the relay process: it reads the secrets from fd 0 (a pipe, until
// its end: they are held in memory only, never in its argv, environment
// or a file), says "ready" on fd 1 and closes it, then copies the output pipe (fd 3) to the log (fd 4) until
// the pipe's end. It ignores SIGTERM, SIGINT, SIGHUP and SIGPIPE: only
// the pipe's end, EndSignal (what the pipe holds then is still logged)
// or SIGKILL ends it.
func Run() int {
	if name, err := syscall.BytePtrFromString(Comm); err == nil {
		syscall.RawSyscall(syscall.SYS_PRCTL, syscall.PR_SET_NAME, uintptr(unsafe.Pointer(name)), 0)
	}
	signal.Ignore(syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP, syscall.SIGPIPE)
	debug.SetGCPercent(25)
	var secrets []Secret
	if json.NewDecoder(io.LimitReader(os.Stdin, 16<<20)).Decode(&secrets) != nil {
		return 2
	}
	os.Stdin.Close()
	secs := make([]redact.Secret, len(secrets))
	for i, s := range secrets {
		secs[i] = redact.Secret{Name: s.Name, Value: s.Value}
	}
	set := redact.Of(secs, nil)
	secrets, secs = nil, nil
	// The pipe non-blocking: its reads wait in the runtime's poller, so
	// that EndSignal can cut the wait short (a read deadline).
	syscall.SetNonblock(3, true)
	in := &endable{f: os.NewFile(3, "output")}
	ends := make(chan os.Signal, 1)
	signal.Notify(ends, EndSignal)
	go func() {
		<-ends
		in.ending.Store(true)
		in.f.SetReadDeadline(time.Now())
	}()
	shed()
	// Ready: childproof's run may return (what the tree wrote meanwhile
	// waits in the pipe, which it drains first).
	os.Stdout.Write([]byte("ready\n"))
	os.Stdout.Close()
	if Copy(in, os.NewFile(4, "log"), set, nil) != nil {
		return 1
	}
	return 0
}

// endable is the relay's output pipe: once ending is set (EndSignal),
// a read returns what the pipe holds without waiting, and its end once
// it holds nothing.
type endable struct {
	f      *os.File
	ending atomic.Bool
}

func (e *endable) Read(p []byte) (int, error) {
	if !e.ending.Load() {
		n, err := e.f.Read(p)
		if !errors.Is(err, os.ErrDeadlineExceeded) {
			return n, err
		}
		if n > 0 {
			return n, nil
		}
	}
	// Ending: the deadline is passed; read the pipe's fd directly,
	// without waiting (it is non-blocking).
	rc, err := e.f.SyscallConn()
	if err != nil {
		return 0, io.EOF
	}
	n := 0
	rc.Control(func(fd uintptr) {
		n, _ = syscall.Read(int(fd), p)
	})
	if n > 0 {
		return n, nil
	}
	return 0, io.EOF
}

// shed drops from memory the pages of the program's code (and, for a
// program linked at a fixed address, of its constants) that the start
// touched: the relay's loop uses a few of them, which come back from the
// file as it runs. Only mappings whose pages are the file's own are shed:
// code, which is never written, and the read-only segments of an ET_EXEC
// executable, which has no relocations (a shared library's or a PIE's
// read-only segments may hold relocated data, RELRO, and are kept).
// MADV_DONTNEED, not MADV_PAGEOUT as run's supervisor uses: PAGEOUT skips
// pages other processes map too, and every childproof maps the same
// binary. Measured: a relay of the whole childproof binary is about 8 MB
// resident after the start, 3-3.7 MB after shed.
func shed() {
	exe, _ := os.Readlink("/proc/self/exe")
	fixed := false
	if f, err := os.Open("/proc/self/exe"); err == nil {
		var h [18]byte
		if _, err := io.ReadFull(f, h[:]); err == nil && string(h[:4]) == "\x7fELF" && h[16] == 2 && h[17] == 0 {
			fixed = true // ET_EXEC
		}
		f.Close()
	}
	ReadOnlyMappings(func(start, end uintptr, perms, path string) {
		if perms[2] == 'x' || fixed && path == exe {
			syscall.Syscall(syscall.SYS_MADVISE, start, end-start, madvDontNeed)
		}
	})
}

// ReadOnlyMappings calls f with each mapping of a file in /proc/self/maps
// that the process cannot write: its range, permissions ("r-xp") and the
// file's path.
func ReadOnlyMappings(f func(start, end uintptr, perms, path string)) {
	b, err := os.ReadFile("/proc/self/maps")
	if err != nil {
		return
	}
	for _, line := range strings.Split(string(b), "\n") {
		// START-END PERMS OFFSET DEV INODE PATH
		fs := strings.Fields(line)
		if len(fs) < 6 || len(fs[1]) < 3 || fs[4] == "0" || !strings.HasPrefix(fs[5], "/") || fs[1][1] == 'w' {
			continue
		}
		lo, hi, ok := strings.Cut(fs[0], "-")
		if !ok {
			continue
		}
		start, err1 := strconv.ParseUint(lo, 16, 64)
		end, err2 := strconv.ParseUint(hi, 16, 64)
		if err1 != nil || err2 != nil || end <= start {
			continue
		}
		f(uintptr(start), uintptr(end), fs[1], fs[5])
	}
}

// madvDontNeed is MADV_DONTNEED: the pages of a private file mapping are
// read from the file again when touched.
const madvDontNeed = 4
