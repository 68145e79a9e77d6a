//go:build !linux

package statedir

// linkNewKey writes the key data at path through a named temporary file
// (linkTempKey): no O_TMPFILE here.
func linkNewKey(path string, data []byte, dirfd int) error {
	return linkTempKey(path, data)
}
