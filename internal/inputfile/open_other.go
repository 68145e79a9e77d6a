//go:build !unix

package inputfile

import "os"

// open opens path (no FIFO blocks an open here).
func open(path string) (*os.File, error) { return os.Open(path) }

func blocking(*os.File) error { return nil }
