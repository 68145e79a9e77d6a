//go:build !linux

package wakeup

// Wakeup is the readiness waits' wake-up, which only Linux launches have.
// It is safe for concurrent use (it does nothing).
type Wakeup struct{}
