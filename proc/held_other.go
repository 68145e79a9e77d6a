//go:build !linux

package proc

// Hold returns p and a release that does nothing: outside Linux records
// are read by their paths.
func (p FS) Hold(pid int) (FS, func()) { return p, func() {} }

// HoldWhile is Hold.
func (p FS) HoldWhile(pid, pidfd int) (FS, func()) { return p, func() {} }

// read is nothing held: reads go by path.
func (h *held) read(name, path string, buf []byte) ([]byte, error, bool) { return nil, nil, false }

// readlink is nothing held.
func (h *held) readlink(name, path string) (string, error, bool) { return "", nil, false }
