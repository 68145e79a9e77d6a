package launcher

import (
	"context"

	"github.com/childproof/childproof/launcher/logread"
)

// LogOptions says which lines of a launch's log ReadLog gives
// (logread.Options). It is plain data, safe for concurrent use while no
// one changes it.
type LogOptions = logread.Options

// ReadLog gives emit the lines of the log of launch name, each without its
// newline. They are masked with every secret known of the launch: its
// record's, the log mask its last start wrote, and those of the spec its
// record names, loaded without launching (logread.Read, with ReadSpec).
// No log is an *Error of Outcome outcome.NotRecorded.
func (s *State) ReadLog(ctx context.Context, name string, o LogOptions, emit func(line string)) error {
	return logread.Read(ctx, s.Store, s.ReadSpec, name, o, emit)
}

// Running reports whether the recorded launch name runs: its record is
// readable and trusted, it was not stopped, and its worker is still the
// process it started (logread.Running).
func (s *State) Running(name string) bool { return logread.Running(s.Store, name) }
