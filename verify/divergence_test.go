package verify

import "testing"

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
