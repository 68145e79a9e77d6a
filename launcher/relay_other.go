//go:build !linux

package launcher

import (
	"github.com/childproof/childproof/launcher/statedir"
	"github.com/childproof/childproof/proc"
	"github.com/childproof/childproof/verify"
)

// tail returns the last n lines of the launch's log.
func (la *Launch) tail(n int) []string { return statedir.Tail(la.LogPath(), n) }

// collectRelay: off Linux no relay runs.
func (st *State) collectRelay(name string, fp *verify.Fingerprint, p proc.FS) string { return "" }

// RelayMain returns at once: off Linux no relay runs.
func RelayMain() {}
