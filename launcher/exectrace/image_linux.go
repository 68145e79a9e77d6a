package exectrace

import (
	"github.com/childproof/childproof/proc"
	"github.com/childproof/childproof/verify"
)

// SameImage reports whether pid runs the image ev describes: the program
// and the environment block's place that exec gave it (a fork keeps both,
// an exec changes them).
func SameImage(p proc.FS, pid int, ev Capture) bool {
	s, err := p.Stat(pid)
	return err == nil && sameImageStat(p, pid, s, ev)
}

// sameImageStat is SameImage with pid's stat read already.
func sameImageStat(p proc.FS, pid int, s proc.Stat, ev Capture) bool {
	if ev.Area == "" || verify.ExecArea(s) != ev.Area {
		return false
	}
	exe, err := p.Exe(pid)
	return err == nil && exe == ev.Exe
}
