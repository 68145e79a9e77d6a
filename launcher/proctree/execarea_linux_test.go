package proctree

import "testing"

func TestNoExecAreaIn(t *testing.T) {
	sig := "10:bash:7ffc1000-7ffc1100 11:mock-llm: 12:sleep:7ffd2000-7ffd2100 "
	tests := []struct {
		pid  int
		want bool
	}{
		{10, false},
		{11, true}, // inside its execve
		{12, false},
		{13, false}, // not in the tree
	}
	for _, tt := range tests {
		if got := NoExecAreaIn(sig, tt.pid); got != tt.want {
			t.Errorf("NoExecAreaIn(%q, %d) = %v, want %v", sig, tt.pid, got, tt.want)
		}
	}
}
