package recorded

import (
	"slices"

	"github.com/childproof/childproof/launcher/census"
	"github.com/childproof/childproof/launcher/proctree"
	"github.com/childproof/childproof/launcher/statedir"
	"github.com/childproof/childproof/proc"
	"github.com/childproof/childproof/spec"
	"github.com/childproof/childproof/verify"
)

// Tree is what the tree judgement of a recorded launch reads. It
// holds the launch's live members (census.LiveMembers, and the descendants of its
// root and worker) and the recorded workers the judgement skips. Each
// member's exec-time evidence is as the record kept it (statedir.RecordMember), and
// only for the process of that pid and start time.
func Tree(p proc.FS, rec *statedir.Record) verify.TreeCheck {
	tree := census.LiveMembers(p, rec)
	for _, top := range []int{rec.Root.Pid, rec.Worker.Pid} {
		if top == 0 || !slices.Contains(tree, top) {
			continue
		}
		for _, d := range p.Descendants(top) {
			if !slices.Contains(tree, d) {
				tree = append(tree, d)
			}
		}
	}
	t := verify.TreeCheck{Tree: tree, Workers: []int{rec.Worker.Pid}}
	for _, rk := range rec.Ranks {
		t.Workers = append(t.Workers, rk.Worker.Pid)
	}
	t.Evidence = func(pid int) *verify.ExecEnv {
		st, err := p.Stat(pid)
		if err != nil {
			return nil
		}
		for _, m := range rec.Members {
			if m.Pid == pid && m.StartTime == st.StartTime {
				return &verify.ExecEnv{Digests: m.ExecEnv, Exe: m.ExecExe, Area: m.ExecArea}
			}
		}
		// A worker role's process (worker "engine") is a rank, not a
		// member: its capture is the rank's.
		for _, rk := range rec.Ranks {
			if rk.Worker.Pid == pid && rk.Worker.StartTime == st.StartTime {
				return rk.ExecEvidence()
			}
		}
		return nil
	}
	return t
}

// owners is Check.Owners for the recorded launch rec of l's
// worker roles, their processes re-selected from the live tree.
func owners(p proc.FS, l *spec.Launch, rec *statedir.Record) map[int]verify.PortOwners {
	pids, roles, _ := proctree.SelectRoles(p, l, Tree(p, rec).Tree, nil)
	return proctree.RoleOwners(l, pids, roles)
}
