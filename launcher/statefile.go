package launcher

import (
	"fmt"
	"io"
	"os"
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
	return &Error{Outcome: Invalid, Kind: KindState, Msg: fmt.Sprintf("state dir: %s %s", path, why),
		Hint: fix + "; or use a state dir of your own (--state-dir, CHILDPROOF_STATE_DIR)"}
}

// readStateFile reads a state file through openStateFile, refusing one
// larger than limit bytes.
func readStateFile(path string, limit int64) ([]byte, error) {
	f, err := openStateFile(path, os.O_RDONLY, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > limit {
		return nil, strictModeError(path, fmt.Sprintf("is larger than %d bytes", limit), "remove it")
	}
	return b, nil
}
