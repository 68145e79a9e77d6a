//go:build !linux

package launcher

// treeEvents hears a launched tree's process events: Linux only.
type treeEvents struct{}
