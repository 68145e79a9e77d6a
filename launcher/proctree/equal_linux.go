package proctree

import (
	"fmt"
	"slices"

	"github.com/childproof/childproof/proc"
	"github.com/childproof/childproof/spec"
	"github.com/childproof/childproof/verify"
)

// EqualMatchesNote says, for a launch of one worker, that its selector also
// matches several processes below the worker with no matching descendant
// and no declared port — the ranks of a job below its agent (torchrun's
// python3 agent and python3 ranks) — instead of silently verifying the
// agent alone; "" when not. A pre-fork server's workers hold its socket: no
// note. execComm may be nil.
func EqualMatchesNote(p proc.FS, l *spec.Launch, worker int, tree []int, execComm func(int) string) string {
	if l.Worker.N() > 1 || len(l.Roles) > 0 || l.Worker.Comm == "" && l.Worker.Exe == "" {
		return ""
	}
	if tree == nil {
		tree = append([]int{worker}, p.Descendants(worker)...)
	}
	if others(tree, worker) < 2 {
		// Two matches other than the worker are what a note needs: a
		// tree of fewer members is not read.
		return ""
	}
	leaves := verify.Workers(p, tree, l.Worker.Comm, l.Worker.Exe, len(tree), execComm)
	if len(leaves) < 2 || slices.Contains(leaves, worker) {
		return ""
	}
	below := p.Descendants(worker)
	for _, pid := range leaves {
		if !slices.Contains(below, pid) || holdsAny(p, l, pid, tree) {
			return ""
		}
	}
	sel := fmt.Sprintf("comm %q", l.Worker.Comm)
	if l.Worker.Exe != "" {
		sel = fmt.Sprintf("exe %q", l.Worker.Exe)
	}
	return fmt.Sprintf("%s also matches %d processes below the worker (pid %d) that match equally (pids %s): if they are the job's workers (ranks below an agent), "+CountWords+" to verify each, or a sharper selector",
		sel, len(leaves), worker, JoinPids(leaves), len(leaves))
}

// others is how many entries of tree are not worker.
func others(tree []int, worker int) int {
	n := 0
	for _, pid := range tree {
		if pid != worker {
			n++
		}
	}
	return n
}

// holdsAny reports whether pid holds a listener on a declared port of l.
func holdsAny(p proc.FS, l *spec.Launch, pid int, tree []int) bool {
	for _, pt := range l.Ports {
		hs, _ := verify.Holders(p, pt.Number, tree)
		for _, h := range hs {
			if slices.Contains(h.Pids, pid) {
				return true
			}
		}
	}
	return false
}
