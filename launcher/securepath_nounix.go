//go:build !unix

package launcher

import (
	"fmt"
	"os"
)

// makeStatePath creates the state dir where there is no path walk (see
// statefile_nounix.go: the state dir is refused after it).
func makeStatePath(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("state dir: %w", err)
	}
	return nil
}
