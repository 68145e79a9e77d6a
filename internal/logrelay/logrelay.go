// Package logrelay is childproof's log relay: the reader of a launched
// tree's output pipe, which masks every secret value (redact.Stream)
// before a byte reaches the launch's log. In the foreground it runs as a
// goroutine of childproof (Copy); for a detached launch, as a small
// process of its own that outlives `run` (as podman's conmon does): any
// binary that links this package becomes the relay when started with
// Env set to Mode as its only environment and Comm as its only argument
// (init, before the rest of the program's packages initialise, which
// keeps it small). It depends on the standard library and redact only.
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
	"unsafe"

	"github.com/childproof/childproof/redact"
)

// Env, set to Mode, makes the process the relay (see Run).
const (
	Env  = "CHILDPROOF_LOG_RELAY"
	Mode = "1"
)

// Comm is the relay's argv[0] and comm: ps shows it; it is never a
// launch's worker.
const Comm = "childproof-log"

// Buf is the size of one read of the output pipe.
const Buf = 64 << 10

func init() {
	if len(os.Args) == 1 && os.Args[0] == Comm && os.Getenv(Env) == Mode {
		os.Exit(Run())
	}
}

// Secret is one secret as the relay receives it on its stdin.
type Secret struct {
	Name  string `json:"n"`
	Value string `json:"v"`
}

// Stats is what Copy says of its progress.
type Stats struct {
	// Reading is set while Copy waits in a read of the pipe: all it read
	// so far is written.
	Reading atomic.Bool
	Done    atomic.Bool
}

// Copy copies the tree's output from r to the log w through set's masking
// sink: every secret value is replaced before a byte reaches w, inside
// words and across the reads' boundaries. When w cannot be written (a
// full disk), it keeps reading and drops the output, so that the tree
// never blocks on a full pipe or dies of SIGPIPE because of its log. It
// returns at the pipe's end (every process that held its write end has
// gone), with w's first error.
func Copy(r io.Reader, w io.Writer, set *redact.Set, st *Stats) error {
	sink := set.Stream(w)
	buf := make([]byte, Buf)
	var werr error
	for {
		if st != nil {
			st.Reading.Store(true)
		}
		n, err := r.Read(buf)
		if st != nil {
			st.Reading.Store(false)
		}
		if n > 0 && werr == nil {
			if _, e := sink.Write(buf[:n]); e != nil {
				werr = e
			}
		}
		if err != nil {
			if werr == nil {
				werr = sink.Close()
			}
			if st != nil {
				st.Done.Store(true)
			}
			if errors.Is(err, io.EOF) {
				return werr
			}
			return err
		}
	}
}

// Run is the relay process: it reads the secrets from fd 0 (a pipe, until
// its end: they are held in memory only, never in its argv, environment
// or a file), says "ready" on fd 1 and closes it, then copies the output pipe (fd 3) to the log (fd 4) until
// the pipe's end. It ignores SIGTERM, SIGINT, SIGHUP and SIGPIPE: only
// the pipe's end (or SIGKILL) ends it.
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
	set := redact.New()
	for _, s := range secrets {
		set.Add(s.Name, s.Value)
	}
	secrets = nil
	shed()
	// Ready: childproof's run may return (what the tree wrote meanwhile
	// waits in the pipe, which it drains first).
	os.Stdout.Write([]byte("ready\n"))
	os.Stdout.Close()
	in, log := os.NewFile(3, "output"), os.NewFile(4, "log")
	if Copy(in, log, set, nil) != nil {
		return 1
	}
	return 0
}

// shed drops from memory the pages of the program's code (and, for a
// program linked at a fixed address, of its constants) that the start
// touched: the relay's loop uses a few of them, which come back from the
// file as it runs. Only mappings whose pages are the file's own are shed:
// code, which is never written, and the read-only segments of an ET_EXEC
// executable, which has no relocations (a shared library's or a PIE's
// read-only segments may hold relocated data, RELRO, and are kept).
// Measured: a relay of the whole childproof binary is about 8 MB resident
// after the start, under 3 MB after shed.
func shed() {
	b, err := os.ReadFile("/proc/self/maps")
	if err != nil {
		return
	}
	exe, _ := os.Readlink("/proc/self/exe")
	fixed := false
	if f, err := os.Open("/proc/self/exe"); err == nil {
		var h [18]byte
		if _, err := io.ReadFull(f, h[:]); err == nil && string(h[:4]) == "\x7fELF" && h[16] == 2 && h[17] == 0 {
			fixed = true // ET_EXEC
		}
		f.Close()
	}
	for _, line := range strings.Split(string(b), "\n") {
		// START-END PERMS OFFSET DEV INODE PATH
		f := strings.Fields(line)
		if len(f) < 6 || f[4] == "0" || !strings.HasPrefix(f[5], "/") || f[1][1] == 'w' {
			continue
		}
		if f[1][2] != 'x' && !(fixed && f[5] == exe) {
			continue
		}
		lo, hi, ok := strings.Cut(f[0], "-")
		if !ok {
			continue
		}
		start, err1 := strconv.ParseUint(lo, 16, 64)
		end, err2 := strconv.ParseUint(hi, 16, 64)
		if err1 != nil || err2 != nil || end <= start {
			continue
		}
		syscall.Syscall(syscall.SYS_MADVISE, uintptr(start), uintptr(end-start), madvDontNeed)
	}
}

// madvDontNeed is MADV_DONTNEED: the pages of a private file mapping are
// read from the file again when touched.
const madvDontNeed = 4
