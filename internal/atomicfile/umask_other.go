//go:build !unix

package atomicfile

import "io/fs"

// CreatedExact is false where the umask cannot be read without setting
// it: a created file's mode is set by fchmod.
func CreatedExact(perm fs.FileMode) bool { return false }
