//go:build !linux

package treeevents

// Events hears a launched tree's process events: Linux only. It is
// safe for concurrent use (it does nothing).
type Events struct{}
