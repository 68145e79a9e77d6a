//go:build unix

package specrule

import "io/fs"

// Executable reports whether a file of mode m can be exec'd: an execute
// bit is set.
func Executable(m fs.FileMode) bool { return m&0o111 != 0 }
