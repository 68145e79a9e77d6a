//go:build !unix

package statedir

import (
	"fmt"
	"io/fs"
	"os"
)

// MakePath creates the state dir where there is no path walk (see
// statefile_nounix.go: the state dir is refused after it).
func MakePath(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("state dir: %w", err)
	}
	return nil
}

// makeStateDir is MakePath, then checkStateDir of the state dir made
// (no descriptor of it: -1).
func makeStateDir(dir string) (fs.FileMode, int, error) {
	if err := MakePath(dir); err != nil {
		return 0, -1, err
	}
	perm, err := checkStateDir(dir)
	return perm, -1, err
}
