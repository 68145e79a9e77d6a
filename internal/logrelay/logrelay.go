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
	"errors"
	"io"
	"sync/atomic"

	"github.com/childproof/childproof/redact"
)

// Env, set to Mode, makes the process the relay (see Run).
const (
	Env  = "CHILDPROOF_LOG_RELAY"
	Mode = "1"
)

// OfEnv names, in the relay's environment, the launch it relays for:
// OfEnv=MARKER, the launch's marker (launcher.MarkerVar's value). It is
// not the marker variable itself, so the relay is never taken for a
// member of the tree; it lets a census of the system's processes match
// a relay to its launch's record.
const OfEnv = "CHILDPROOF_LOG_RELAY_OF"

// Comm is the relay's argv[0] and comm: ps shows it; it is never a
// launch's worker.
const Comm = "childproof-log"

// Buf is the size of one read of the output pipe (the pipe holds 1 MiB:
// fewer reads and log writes for a chatty worker).
const Buf = 256 << 10

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
