//go:build !linux

package launcher

// wakeup is the readiness waits' wake-up, which only Linux launches have.
type wakeup struct{}
