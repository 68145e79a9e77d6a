//go:build !linux

package watchdog

import "time"

// Watchdog ends a foreground tree whose starter is gone; off Linux none
// runs. It is not safe for concurrent use.
type Watchdog struct{}

// Settle reports that no watchdog runs: off Linux none does.
func Settle(timeout time.Duration) bool { return true }
