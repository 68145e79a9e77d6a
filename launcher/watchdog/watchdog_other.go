//go:build !linux

package watchdog

// Watchdog ends a foreground tree whose starter is gone; off Linux none
// runs. It is not safe for concurrent use.
type Watchdog struct{}
