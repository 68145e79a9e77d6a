//go:build linux && !amd64

package exectrace

// CanClearDeathSignal: elsewhere a detached launch's traced root starts
// without a parent-death signal (see Start for the window that
// leaves).
const CanClearDeathSignal = false

func clearDeathSignal(pid int) error { return nil }
