//go:build !linux

package statedir

import "os"

// ScratchParent is the directory a test's own state dir is made in when
// its caller chose none: os.TempDir() on this system.
func ScratchParent() string { return os.TempDir() }
