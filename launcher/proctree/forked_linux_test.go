package proctree

import (
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/childproof/childproof/internal/testsupport"
	"github.com/childproof/childproof/proc"
	"github.com/childproof/childproof/verify"
)

// ForkedFrom finds a real subshell (bash forked, no exec) of a process,
// and neither a child that exec'd sleep nor the test itself.
func TestForkedFrom(t *testing.T) {
	if b, err := os.ReadFile("/proc/sys/kernel/randomize_va_space"); err != nil || strings.TrimSpace(string(b)) == "0" {
		t.Skip("address-space randomization is off: ForkedFrom lists nothing")
	}
	cmd, sub, sleep := testsupport.ForkedSubshell(t)
	p := proc.Default
	st, err := p.Stat(cmd.Process.Pid)
	if err != nil {
		t.Fatal(err)
	}
	exe, _ := p.Exe(cmd.Process.Pid)
	got := ForkedFrom(p, exe, verify.ExecArea(st), st.StartTime)
	if !slices.Contains(got, sub) || !slices.Contains(got, cmd.Process.Pid) {
		t.Errorf("ForkedFrom = %v, want the subshell %d and bash %d", got, sub, cmd.Process.Pid)
	}
	if slices.Contains(got, sleep) || slices.Contains(got, os.Getpid()) {
		t.Errorf("ForkedFrom = %v: lists sleep (%d, exec'd) or the test", got, sleep)
	}
	if got := ForkedFrom(p, exe, verify.ExecArea(st), st.StartTime+1<<40); len(got) != 0 {
		t.Errorf("ForkedFrom(started later than all) = %v, want none", got)
	}
	if got := ForkedFrom(p, exe, "", st.StartTime); got != nil {
		t.Errorf("ForkedFrom(no area) = %v, want none", got)
	}
}
