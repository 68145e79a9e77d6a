//go:build !unix

package statedir

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"runtime"

	"github.com/childproof/childproof/launcher/failure"
	"github.com/childproof/childproof/outcome"
)

// errNoStateDir is what the state dir says off Unix: its trust checks
// (owner, mode, no symlinks, flock) are Unix ones, and nothing launches
// there, so there is nothing to record.
var errNoStateDir = fmt.Errorf("the state dir needs Linux (it holds the records of launches, which only run there); this is %s", runtime.GOOS)

// CheckDir refuses every state dir off Unix.
func CheckDir(path string, follow bool) error {
	return &failure.Error{Outcome: outcome.Usage, Err: errNoStateDir}
}

// checkStateDir refuses every state dir off Unix, as CheckDir does.
func checkStateDir(dir string) (fs.FileMode, error) { return 0, CheckDir(dir, true) }

// The entry types CheckEntry takes (their Unix values).
const (
	FileType = 0o100000
	DirType  = 0o040000
)

// CheckEntry accepts every entry off Unix (CheckDir refused the state dir).
func CheckEntry(path string, typ uint32) error { return nil }

// checkEntry is CheckEntry, saying whether there is an entry at path.
func checkEntry(path string, typ uint32) (bool, error) {
	_, err := os.Lstat(path)
	return err == nil, nil
}

// OpenFile fails off Unix.
func OpenFile(path string, flag int, perm uint32) (*os.File, error) {
	return nil, &fs.PathError{Op: "open", Path: path, Err: errNoStateDir}
}

// createFile fails off Unix.
func createFile(path string, flag int, perm uint32) (*os.File, error) {
	return nil, &fs.PathError{Op: "open", Path: path, Err: errNoStateDir}
}

// ReadFile fails off Unix.
func ReadFile(path string, limit int64) ([]byte, error) {
	return nil, &fs.PathError{Op: "open", Path: path, Err: errNoStateDir}
}

// readFileBuf fails off Unix.
func readFileBuf(path string, limit int64, buf []byte) ([]byte, error) {
	return nil, &fs.PathError{Op: "open", Path: path, Err: errNoStateDir}
}

// readTail fails off Unix.
func readTail(path string, size int64) ([]byte, int64, error) {
	return nil, 0, &fs.PathError{Op: "open", Path: path, Err: errNoStateDir}
}

// OpenDir fails off Unix.
func OpenDir(dir string) (int, error) {
	return -1, &fs.PathError{Op: "open", Path: dir, Err: errNoStateDir}
}

// CloseDir does nothing off Unix.
func CloseDir(int) {}

// ReadFileAt fails off Unix.
func ReadFileAt(dirfd int, dir, name string, limit int64, buf []byte) ([]byte, error) {
	return nil, &fs.PathError{Op: "open", Path: dir, Err: errNoStateDir}
}

// SyncDir fails off Unix.
func SyncDir(dir string) error { return &fs.PathError{Op: "fsync", Path: dir, Err: errNoStateDir} }

// ErrReadOnly is never returned off Unix.
var ErrReadOnly = errors.New("read-only file system")
