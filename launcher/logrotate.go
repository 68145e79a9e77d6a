package launcher

import (
	"errors"
	"io/fs"
	"os"
	"strconv"
)

// rotateLogs moves the log at path to path.1, path.1 to path.2, … keeping
// keep of them (0: the log is removed); older ones go. A rotated file that is not a
// regular file is left alone and stops the shift below it (renaming onto
// it would replace what the state dir's checks refuse to touch).
func rotateLogs(path string, keep int) error {
	name := func(i int) string { return path + "." + strconv.Itoa(i) }
	// The oldest goes, and any beyond it (keep was lowered).
	for i := max(keep, 1); ; i++ {
		if err := os.Remove(name(i)); errors.Is(err, fs.ErrNotExist) {
			break
		}
	}
	if keep <= 0 {
		return os.Remove(path)
	}
	for i := keep - 1; i >= 1; i-- {
		fi, err := os.Lstat(name(i))
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil || !fi.Mode().IsRegular() {
			continue
		}
		if err := os.Rename(name(i), name(i+1)); err != nil {
			return err
		}
	}
	return os.Rename(path, name(1))
}
