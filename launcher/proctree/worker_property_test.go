package proctree

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/childproof/childproof/schema"
	"github.com/childproof/childproof/verify"
)

// TestWorkerModelProperties: over generated /proc trees (depth, fan-out,
// comms renamed after exec), the one worker function and the pick agree
// with their definitions: the job's workers match the selector, none has
// a matching descendant, there are min(N, matching leaves) of them in pid
// order; a one-worker pick matches and is the shallowest match.
func TestWorkerModelProperties(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 21))
	comms := []string{"srv", "python3", "bash"}
	for i := range 60 {
		var rows [][4]any
		next := 100
		execComm := map[int]string{}
		var grow func(ppid, depth int)
		grow = func(ppid, depth int) {
			pid := next
			next++
			comm := comms[r.IntN(len(comms))]
			if comm == "srv" && r.IntN(3) == 0 {
				// setproctitle renamed it after its exec
				execComm[pid] = "srv"
				comm = "srv: worker"
			}
			rows = append(rows, [4]any{pid, ppid, comm, "/usr/bin/" + comm})
			if depth < 4 {
				for range r.IntN(4) {
					grow(pid, depth+1)
				}
			}
		}
		grow(1, 0)
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			p := fakeProc(t, rows...)
			var tree []int
			matches := map[int]bool{}
			for _, row := range rows {
				pid := row[0].(int)
				tree = append(tree, pid)
				if row[2].(string) == "srv" || execComm[pid] == "srv" {
					matches[pid] = true
				}
			}
			ec := func(pid int) string { return execComm[pid] }
			leaves := 0
			for pid := range matches {
				if !slices.ContainsFunc(p.Descendants(pid), func(d int) bool { return matches[d] }) {
					leaves++
				}
			}
			for _, n := range []int{1, 2, 3} {
				got := verify.Workers(p, tree, "srv", "", n, ec)
				if len(got) != min(n, leaves) || !slices.IsSorted(got) {
					t.Fatalf("Workers(n=%d) = %v, want %d of %d matching leaves, sorted", n, got, min(n, leaves), leaves)
				}
				for _, pid := range got {
					if !matches[pid] {
						t.Errorf("worker %d does not match the selector", pid)
					}
					if slices.ContainsFunc(p.Descendants(pid), func(d int) bool { return matches[d] }) {
						t.Errorf("worker %d has a matching descendant", pid)
					}
				}
			}
			l := &schema.Launch{Command: []string{"x"}, Worker: schema.Worker{Comm: "srv"}}
			got := PickWorker(p, l, 100, tree, ec)
			if len(matches) == 0 {
				if got != 0 {
					t.Errorf("PickWorker = %d with no match", got)
				}
				return
			}
			if !matches[got] {
				t.Fatalf("PickWorker = %d, not a match", got)
			}
			for pid := range matches {
				if len(p.Ancestors(pid, 0)) < len(p.Ancestors(got, 0)) {
					t.Errorf("PickWorker = %d, but %d is a shallower match", got, pid)
				}
			}
		})
	}
}
