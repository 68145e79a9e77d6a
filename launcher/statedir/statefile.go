package statedir

import (
	"fmt"

	"github.com/childproof/childproof/internal/bufpool"
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

// stateBufs holds the buffers of state files read to be compared with
// what this Store wrote there (the stop of a launch reads back its
// record and round): a match is dropped at once, so the buffer is reused.
var stateBufs = bufpool.New(0, 64<<10)

// readTemp is ReadFile into a buffer of stateBufs, which the caller gives
// back with stateBufs.Put(bp, b) once done with b.
func readTemp(path string, limit int64) (b []byte, bp *[]byte, err error) {
	bp = stateBufs.Get()
	b, err = readFileBuf(path, limit, *bp)
	return b, bp, err
}
