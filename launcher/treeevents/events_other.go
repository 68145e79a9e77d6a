//go:build !linux

package treeevents

import "time"

// Events hears a launched tree's process events: Linux only. It is
// safe for concurrent use (it does nothing).
type Events struct{}

// Settle has no connector socket to close here.
func Settle(timeout time.Duration) bool { return true }
