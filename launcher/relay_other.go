//go:build !linux

package launcher

// output is the tree's output pipe; launching is Linux-only.
type output struct{}

// tail returns the last n lines of the launch's log.
func (la *Launch) tail(n int) []string { return Tail(la.LogPath(), n) }
