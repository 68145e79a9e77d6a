//go:build !linux && !darwin

package inputfile

import "os"

// pseudo is the pseudo file system check of Linux (pseudo_statfs.go); here the type check is
// all.
func pseudo(*os.File) string { return "" }
