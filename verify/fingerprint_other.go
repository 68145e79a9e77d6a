//go:build !linux

package verify

import (
	"errors"

	"github.com/childproof/childproof/proc"
)

// errNeedsLinux is what fingerprinting says outside Linux: it needs pidfds
// and /proc.
var errNeedsLinux = errors.New("fingerprinting a process needs Linux (pidfds and /proc)")

// TakeFingerprint needs Linux.
func TakeFingerprint(p proc.FS, pid int) (Fingerprint, error) { return Fingerprint{}, errNeedsLinux }

// FingerprintPidfd needs Linux.
func FingerprintPidfd(p proc.FS, pid, fd int) (Fingerprint, error) {
	return Fingerprint{}, errNeedsLinux
}

// OpenFingerprint needs Linux.
func OpenFingerprint(p proc.FS, pid int) (Fingerprint, int, error) {
	return Fingerprint{}, -1, errNeedsLinux
}

// Open needs Linux: the liveness is Unknown.
func (a Fingerprint) Open(p proc.FS) (int, Liveness, error) { return -1, Unknown, errNeedsLinux }

// Check needs Linux: the liveness is Unknown.
func (a Fingerprint) Check(p proc.FS) Liveness { return Unknown }

// FingerprintImagePidfd needs Linux.
func FingerprintImagePidfd(p proc.FS, pid, fd int) (Fingerprint, string, error) {
	return Fingerprint{}, "", errNeedsLinux
}
