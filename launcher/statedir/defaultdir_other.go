//go:build !unix

package statedir

// ownedDir accepts path: childproof launches nothing on this system.
func ownedDir(path string, uid int) error { return nil }
