package launcher

import (
	"github.com/childproof/childproof/proc"
	"github.com/childproof/childproof/verify"
)

// CountStopped returns how many launches of st Census lists as
// StatusStopped with all, and leaves out without it: childproof stopped
// them and their worker is not alive. Unlike Census it reads no socket,
// changes nothing (no round end noted, no cgroup swept) and skips records
// that fail to load or authenticate (ps's "2 stopped (ps --all)").
func CountStopped(p proc.FS, st *State) (int, error) {
	recs, _, err := st.Summaries()
	if err != nil {
		return 0, err
	}
	n := 0
	for _, r := range recs {
		if r.Stopped != nil && r.Worker.Check(p) != verify.Alive {
			n++
		}
	}
	return n, nil
}
