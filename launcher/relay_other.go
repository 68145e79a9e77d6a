//go:build !linux

package launcher

import (
	"github.com/childproof/childproof/launcher/statedir"
)

// tail returns the last n lines of the launch's log.
func (la *Launch) tail(n int) []string { return statedir.Tail(la.LogPath(), n) }

// RelayMain returns at once: off Linux no relay runs.
func RelayMain() {}
