package statedir

import (
	"fmt"

	"github.com/childproof/childproof/launcher/failure"
	"github.com/childproof/childproof/outcome"
)

// Size caps of the files childproof reads from its state dir: a record is
// a few KiB, the key 64 bytes. A planted /dev/zero or a huge file is
// refused instead of read into memory.
const (
	MaxRecordSize = 1 << 20
	maxKeySize    = 4 << 10
)

// StrictModeError is a state dir entry that fails the StrictModes check.
func StrictModeError(path, why, fix string) *failure.Error {
	return &failure.Error{Outcome: outcome.UntrustedStateDir, Msg: fmt.Sprintf("state dir: %s %s", path, why),
		Path: path, Other: fix, Fix: failure.FixStateDirMode,
		Hint: fix + "; or use a state dir of your own (Options.StateDir)"}
}
