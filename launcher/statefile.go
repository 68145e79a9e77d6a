package launcher

import (
	"fmt"

	"github.com/childproof/childproof/outcome"
)

// Size caps of the files childproof reads from its state dir: a record is
// a few KiB, the key 64 bytes. A planted /dev/zero or a huge file is
// refused instead of read into memory.
const (
	maxRecordSize = 1 << 20
	maxKeySize    = 4 << 10
)

// strictModeError is a state dir entry that fails the StrictModes check.
func strictModeError(path, why, fix string) *Error {
	return &Error{Outcome: outcome.UntrustedStateDir, Msg: fmt.Sprintf("state dir: %s %s", path, why),
		Path: path, Other: fix, Fix: FixStateDirMode,
		Hint: fix + "; or use a state dir of your own (Options.StateDir)"}
}
