package census

import (
	"github.com/childproof/childproof/proc"
	"github.com/childproof/childproof/verify"
)

// CountStopped returns how many launches of st Take lists as
// StatusStopped with all, and leaves out without it: childproof stopped
// them and their worker is not alive. ps shows the count as "2 stopped
// (ps --all)". Unlike Take it reads no socket and changes nothing: it
// notes no round end and sweeps no cgroup. It skips records that fail to
// load or authenticate.
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
