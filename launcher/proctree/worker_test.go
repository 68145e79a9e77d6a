package proctree

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/childproof/childproof/proc"
	"github.com/childproof/childproof/schema"
	"github.com/childproof/childproof/verify"
)

// fakeProc writes a /proc snapshot: each process's stat, comm, exe link
// and children, from (pid, ppid, comm, exe) rows.
func fakeProc(t *testing.T, rows ...[4]any) proc.FS {
	t.Helper()
	root := t.TempDir()
	kids := map[int][]int{}
	for _, r := range rows {
		pid, ppid, comm, exe := r[0].(int), r[1].(int), r[2].(string), r[3].(string)
		dir := filepath.Join(root, fmt.Sprint(pid))
		must(t, os.MkdirAll(filepath.Join(dir, "task", fmt.Sprint(pid)), 0o755))
		stat := fmt.Sprintf("%d (%s) S %d %d %d 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 %d 0 0\n", pid, comm, ppid, ppid, ppid, 1000+pid)
		must(t, os.WriteFile(filepath.Join(dir, "stat"), []byte(stat), 0o644))
		must(t, os.WriteFile(filepath.Join(dir, "comm"), []byte(comm+"\n"), 0o644))
		must(t, os.Symlink(exe, filepath.Join(dir, "exe")))
		kids[ppid] = append(kids[ppid], pid)
	}
	for _, r := range rows {
		pid := r[0].(int)
		var b []byte
		for _, k := range kids[pid] {
			b = fmt.Appendf(b, "%d ", k)
		}
		must(t, os.WriteFile(filepath.Join(root, fmt.Sprint(pid), "task", fmt.Sprint(pid), "children"), b, 0o644))
	}
	return proc.FS{Root: root}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// TestPickWorker runs worker discovery over /proc snapshots.
func TestPickWorker(t *testing.T) {
	wrapped := [][4]any{
		{100, 1, "bash", "/usr/bin/bash"},
		{101, 100, "python3", "/usr/bin/python3.12"},
		{102, 101, "srv", "/opt/srv (deleted)"},
		{103, 101, "srv", "/opt/srv"},
	}
	tree := []int{100, 101, 102, 103}
	tests := []struct {
		name string
		rows [][4]any
		tree []int
		l    schema.Launch
		want int
	}{
		{"comm picks the one nearest the root", wrapped, tree, schema.Launch{Command: []string{"x"}, Worker: schema.Worker{Comm: "srv"}}, 102},
		{"exe matches a rebuilt binary", wrapped, tree, schema.Launch{Command: []string{"x"}, Worker: schema.Worker{Exe: "/opt/srv"}}, 102},
		{"a selector that matches nothing waits", wrapped, tree, schema.Launch{Command: []string{"x"}, Worker: schema.Worker{Comm: "nginx"}}, 0},
		{"no selector: the root", wrapped, tree, schema.Launch{Command: []string{"x"}}, 100},
		{"a dispatch script's bash has not exec'd yet", wrapped, tree, schema.Launch{Dispatch: []string{"d.sh"}}, 0},
		{"a dispatch script that exec'd", [][4]any{{100, 1, "srv", "/opt/srv"}}, []int{100}, schema.Launch{Dispatch: []string{"d.sh"}}, 100},
		{"the root is gone", wrapped, []int{101, 102}, schema.Launch{Command: []string{"x"}}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := fakeProc(t, tt.rows...)
			if got := PickWorker(p, &tt.l, 100, tt.tree, nil); got != tt.want {
				t.Errorf("PickWorker = %d, want %d", got, tt.want)
			}
		})
	}
}

// TestWorkersOfAJob: worker { count = N } over /proc snapshots — the
// ranks are the matching processes without a matching descendant (not
// the agent of the same program), the N deepest, in start order; fewer
// than N are not all there yet.
func TestWorkersOfAJob(t *testing.T) {
	torchrun := [][4]any{
		{200, 1, "python3", "/usr/bin/python3.11"}, // the agent
		{201, 200, "python3", "/usr/bin/python3.11"},
		{202, 200, "python3", "/usr/bin/python3.11"},
		{203, 201, "python3", "/usr/bin/python3.11"}, // a data loader below rank 0
		{204, 200, "bash", "/usr/bin/bash"},
	}
	tests := []struct {
		name string
		rows [][4]any
		tree []int
		n    int
		want []int
	}{
		{"agent alone: not there yet", torchrun[:1], []int{200}, 2, []int{200}},
		{"one rank: the agent is no rank", torchrun[:2], []int{200, 201}, 2, []int{201}},
		{"two ranks", torchrun[:3], []int{200, 201, 202}, 2, []int{201, 202}},
		{"a rank's child of the same program is deeper", torchrun, []int{200, 201, 202, 203, 204}, 2, []int{202, 203}},
		{"more leaves than N: the deepest", torchrun, []int{200, 201, 202, 203, 204}, 1, []int{203}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := fakeProc(t, tt.rows...)
			got := verify.Workers(p, tt.tree, "python3", "", tt.n, nil)
			if !slices.Equal(got, tt.want) {
				t.Errorf("Workers = %v, want %v", got, tt.want)
			}
		})
	}
}

// TestWorkersStartOrder: the ranks are ordered by when they started, not
// by pid — after a pid wrap, rank 1 (started second) has the lower pid, and
// the record's worker 1/N must still be rank 0. Ranks started in the same
// clock tick fall back to pid order.
func TestWorkersStartOrder(t *testing.T) {
	rows := [][4]any{
		{32700, 1, "bash", "/usr/bin/bash"},
		{32760, 32700, "srv", "/opt/srv"}, // rank 0, started first
		{300, 32700, "srv", "/opt/srv"},   // rank 1, after the wrap
		{301, 32700, "srv", "/opt/srv"},   // rank 2, in rank 1's tick
	}
	starts := map[int]int{32700: 500, 32760: 510, 300: 520, 301: 520}
	p := fakeProc(t, rows...)
	for pid, start := range starts {
		stat := fmt.Sprintf("%d (x) S 1 1 1 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 %d 0 0\n", pid, start)
		must(t, os.WriteFile(filepath.Join(p.Root, fmt.Sprint(pid), "stat"), []byte(stat), 0o644))
	}
	got := verify.Workers(p, []int{32700, 32760, 300, 301}, "srv", "", 3, nil)
	if want := []int{32760, 300, 301}; !slices.Equal(got, want) {
		t.Errorf("Workers = %v, want %v (start order, pid within a tick)", got, want)
	}
}
