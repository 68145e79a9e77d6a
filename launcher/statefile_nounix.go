//go:build !unix

package launcher

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"runtime"

	"github.com/childproof/childproof/outcome"
)

// errNoStateDir is what the state dir says off Unix: its trust checks
// (owner, mode, no symlinks, flock) are Unix ones, and nothing launches
// there, so there is nothing to record.
var errNoStateDir = fmt.Errorf("the state dir needs Linux (it holds the records of launches, which only run there); this is %s", runtime.GOOS)

func checkStateDir(path string, follow bool) error {
	return &Error{Outcome: outcome.Usage, Err: errNoStateDir}
}

// The entry types checkStateEntry takes (their Unix values).
const (
	stateFileType = 0o100000
	stateDirType  = 0o040000
)

func checkStateEntry(path string, typ uint32) error { return nil }

func openStateFile(path string, flag int, perm uint32) (*os.File, error) {
	return nil, &fs.PathError{Op: "open", Path: path, Err: errNoStateDir}
}

func readStateFile(path string, limit int64) ([]byte, error) {
	return nil, &fs.PathError{Op: "open", Path: path, Err: errNoStateDir}
}

func openStateDir(dir string) (int, error) {
	return -1, &fs.PathError{Op: "open", Path: dir, Err: errNoStateDir}
}

func closeStateDir(int) {}

func readStateFileAt(dirfd int, dir, name string, limit int64, buf []byte) ([]byte, error) {
	return nil, &fs.PathError{Op: "open", Path: dir, Err: errNoStateDir}
}

func syncDir(dir string) error { return &fs.PathError{Op: "fsync", Path: dir, Err: errNoStateDir} }

// errReadOnly is never returned off Unix.
var errReadOnly = errors.New("read-only file system")
