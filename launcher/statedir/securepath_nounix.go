//go:build !unix

package statedir

import (
	"fmt"
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
