package statedir

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// rotateLogs moves the log at path to path.1, path.1 to path.2, … keeping
// keep of them (0: the log is removed); older ones go. A rotated file that is not a
// regular file is left alone and stops the shift below it (renaming onto
// it would replace what the state dir's checks refuse to touch). The
// first failure (a read-only or full file system) ends the rotation and
// is returned: every step is bounded by the directory's listing and keep.
func rotateLogs(path string, keep int) error {
	name := func(i int) string { return path + "." + strconv.Itoa(i) }
	// The oldest goes, and any beyond it (keep was lowered): the ones
	// the directory lists, not a count upwards until one is missing.
	ents, err := os.ReadDir(filepath.Dir(path))
	if err != nil {
		return err
	}
	prefix := filepath.Base(path) + "."
	for _, e := range ents {
		n, ok := rotatedNumber(e.Name(), prefix)
		if !ok || n < max(keep, 1) || !e.Type().IsRegular() {
			continue
		}
		if err := os.Remove(name(n)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
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
		if err != nil {
			return err
		}
		if !fi.Mode().IsRegular() {
			continue
		}
		if err := os.Rename(name(i), name(i+1)); err != nil {
			return err
		}
	}
	return os.Rename(path, name(1))
}

// rotatedNumber is N of a rotated log's file name PREFIX+N (N ≥ 1, in
// decimal without leading zeros).
func rotatedNumber(file, prefix string) (int, bool) {
	s, ok := strings.CutPrefix(file, prefix)
	if !ok || s == "" || s[0] == '0' || len(s) > 9 {
		return 0, false
	}
	n, err := strconv.Atoi(s)
	return n, err == nil && n > 0
}
