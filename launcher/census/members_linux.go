package census

import (
	"fmt"
	"slices"

	"github.com/childproof/childproof/launcher/proctree"
	"github.com/childproof/childproof/launcher/statedir"
	"github.com/childproof/childproof/proc"
	"github.com/childproof/childproof/verify"
)

// LiveMembers lists the live processes of a recorded launch's tree: the
// members of its cgroup (when it is one childproof made for it), else
// those carrying its marker and, once the worker is gone, those forked
// from it without an exec since (proctree.ForkedFrom) and their
// descendants, plus the recorded worker and root while they live. A rank that
// outlived its agent counts: the launch is alive while this is not empty.
func LiveMembers(p proc.FS, rec *statedir.Record) []int {
	var out []int
	add := func(pid int) {
		if !slices.Contains(out, pid) {
			out = append(out, pid)
		}
	}
	if rec.Worker.Check(p) == verify.Alive {
		add(rec.Worker.Pid)
	}
	if rec.Root.Pid != 0 && rec.Root.Check(p) == verify.Alive {
		add(rec.Root.Pid)
	}
	if cg := proctree.TrustedCgroup(rec.Cgroup, rec.Name); cg != "" {
		pids, _ := proctree.CgroupPids(cg)
		for _, pid := range pids {
			if s, err := p.Stat(pid); err == nil && s.State != 'Z' {
				add(pid)
			}
		}
	} else if rec.Marker != "" && !proctree.CgroupRemoved(rec.Cgroup, rec.Name) {
		for _, pid := range proctree.MarkerPids(p, rec.Marker)[rec.Marker] {
			add(pid)
		}
		if !slices.Contains(out, rec.Worker.Pid) {
			for _, pid := range forkedMembers(p, rec) {
				add(pid)
			}
		}
	}
	return out
}

// forkedMembers lists, for a recorded launch whose worker is gone, the
// daemons it forked once it was judged (the launch no longer traced its
// forks), which carry the marker only until they write a title over it:
// the worker's forks that never exec'd (proctree.ForkedFrom) and their
// live descendants.
func forkedMembers(p proc.FS, rec *statedir.Record) []int {
	var out []int
	for _, pid := range proctree.ForkedFrom(p, rec.ExecExe, rec.ExecArea, rec.Worker.StartTime) {
		out = append(out, pid)
		for _, d := range p.Descendants(pid) {
			if s, err := p.Stat(d); err == nil && s.State != 'Z' && !slices.Contains(out, d) {
				out = append(out, d)
			}
		}
	}
	return out
}

// MembersNote says what is left of a launch whose worker is gone.
func MembersNote(pids []int) string {
	return fmt.Sprintf("worker gone, %d %s left (pid %s)", len(pids), map[bool]string{true: "member", false: "members"}[len(pids) == 1], proctree.JoinPids(pids))
}
