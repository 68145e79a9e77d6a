package verify

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestFirstDiffer(t *testing.T) {
	row := func(pid int, role, state, digest string) ExplainRow {
		return ExplainRow{Pid: pid, Role: Role(role), Vars: []ExplainVar{{Name: "X", State: VarState(state), Digest: digest}}}
	}
	tests := []struct {
		name    string
		rows    []ExplainRow
		wantPid int
	}{
		{"all match", []ExplainRow{row(1, "ancestor", "unset", ""), row(2, "root", "set", "d"), row(3, "worker", "set", "d")}, 0},
		{"the worker differs", []ExplainRow{row(2, "root", "set", "d"), row(3, "chain", "set", "d"), row(4, "worker", "set", "e")}, 4},
		{"the chain drops it", []ExplainRow{row(2, "root", "set", "d"), row(3, "chain", "unset", ""), row(4, "worker", "unset", "")}, 3},
		{"ancestors and descendants do not count", []ExplainRow{row(1, "ancestor", "set", "e"), row(2, "worker", "set", "d"), row(5, "descendant", "unset", "")}, 0},
		{"unreadable is skipped", []ExplainRow{row(2, "root", "unreadable", ""), row(3, "worker", "set", "e")}, 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, ok := FirstDiffer(tt.rows, 0, "d")
			if ok != (tt.wantPid != 0) || r.Pid != tt.wantPid {
				t.Errorf("FirstDiffer = pid %d, %v; want pid %d", r.Pid, ok, tt.wantPid)
			}
		})
	}
}

func TestJudge(t *testing.T) {
	v := func(state, digest string) ExplainVar { return ExplainVar{State: VarState(state), Digest: digest} }
	row := func(pid int, role Role, vars ...ExplainVar) ExplainRow {
		return ExplainRow{Pid: pid, Role: role, Vars: vars}
	}
	tests := []struct {
		name     string
		rows     []ExplainRow
		intended map[string]string
		want     []Judgement
	}{
		{"nothing intended: only readability is judged",
			[]ExplainRow{row(2, RoleRoot, v("set", "d"), v("set", "e")), row(3, RoleWorker, v("unset", ""), v("unreadable", ""))},
			nil,
			[]Judgement{{Name: "A"}, {Name: "B", Unreadable: true}}},
		{"the intended value everywhere",
			[]ExplainRow{row(1, RoleAncestor, v("unset", ""), v("unset", "")), row(2, RoleRoot, v("set", "d"), v("set", "e")), row(3, RoleWorker, v("set", "d"), v("set", "e"))},
			map[string]string{"A": "d", "B": "e"},
			[]Judgement{{Name: "A", Intended: "d"}, {Name: "B", Intended: "e"}}},
		{"the chain drops one, the worker lacks it",
			[]ExplainRow{row(2, RoleRoot, v("set", "d"), v("set", "e")), row(3, RoleChain, v("unset", ""), v("set", "e")), row(4, RoleWorker, v("unset", ""), v("set", "e"))},
			map[string]string{"A": "d"},
			[]Judgement{{Name: "A", Intended: "d", FirstDiffers: &ExplainRow{Pid: 3, Role: RoleChain, Vars: []ExplainVar{v("unset", ""), v("set", "e")}}, WorkerDiffers: true}, {Name: "B"}}},
		{"an unreadable worker cannot differ",
			[]ExplainRow{row(2, RoleRoot, v("set", "d")), row(3, RoleWorker, v("unreadable", ""))},
			map[string]string{"A": "d"},
			[]Judgement{{Name: "A", Intended: "d", Unreadable: true}}},
		{"a descendant that differs is not on the path, but it diverged",
			[]ExplainRow{row(2, RoleWorker, v("set", "d")), row(5, RoleDescendant, v("set", "x"))},
			map[string]string{"A": "d"},
			[]Judgement{{Name: "A", Intended: "d", Diverged: []ExplainRow{row(5, RoleDescendant, v("set", "x"))}}}},
		{"a helper (forked, not exec'd) is not judged",
			[]ExplainRow{row(2, RoleWorker, v("set", "d")), {Pid: 5, Role: RoleDescendant, Helper: true, Vars: []ExplainVar{v("set", "x")}}},
			map[string]string{"A": "d"},
			[]Judgement{{Name: "A", Intended: "d"}}},
		{"an unreadable member is no 'every process'",
			[]ExplainRow{row(2, RoleRoot, v("set", "d")), row(3, RoleWorker, v("set", "d")), row(5, RoleDescendant, v("unreadable", ""))},
			map[string]string{"A": "d"},
			[]Judgement{{Name: "A", Intended: "d", UnreadableRows: []ExplainRow{row(5, RoleDescendant, v("unreadable", ""))}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			names := []string{"A", "B"}[:len(tt.rows[0].Vars)]
			got := Judge(tt.rows, names, tt.intended)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Judge (-want +got):\n%s", diff)
			}
			x := &Explanation{Names: names, Rows: tt.rows, Judgements: got}
			want := map[string]string{}
			for n, d := range tt.intended {
				want[n] = d
			}
			if diff := cmp.Diff(want, x.Intended()); diff != "" {
				t.Errorf("Intended (-want +got):\n%s", diff)
			}
		})
	}
}
