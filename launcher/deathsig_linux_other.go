//go:build linux && !amd64

package launcher

// canClearDeathSignal: elsewhere a detached launch's traced root starts
// without a parent-death signal (see startWatched for the window that
// leaves).
const canClearDeathSignal = false

func clearDeathSignal(pid int) error { return nil }
