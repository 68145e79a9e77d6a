//go:build unix

package schema

import "io/fs"

// executable reports whether a file of mode m can be exec'd: an execute
// bit is set.
func executable(m fs.FileMode) bool { return m&0o111 != 0 }
