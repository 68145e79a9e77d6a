//go:build !unix

package launcher

// checkStatePath is a no-op where there is no state dir (see
// statefile_nounix.go).
func checkStatePath(dir string) error { return nil }
