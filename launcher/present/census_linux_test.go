package present

import (
	"os/exec"
	"testing"
	"time"

	"github.com/childproof/childproof/launcher"
	"github.com/childproof/childproof/proc"
	"github.com/childproof/childproof/verify"
)

// TestEmptyCensusText: what ps says when it lists nothing — without
// --all, the stopped launches it left out counted.
func TestEmptyCensusText(t *testing.T) {
	empty, err := launcher.OpenState(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	stopped, err := launcher.OpenState(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	c := exec.Command("true")
	if err := c.Run(); err != nil {
		t.Fatal(err)
	}
	gone := verify.Fingerprint{Pid: c.Process.Pid, StartTime: 1, Exe: "/usr/bin/true", Comm: "true"}
	now := time.Now()
	for _, n := range []string{"a", "b"} {
		if err := stopped.Save(&launcher.Record{Name: n, Root: gone, Worker: gone, Stopped: &now}); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		st   *launcher.State
		all  bool
		want string
	}{
		{empty, false, "no recorded launches"},
		{empty, true, "no recorded launches"},
		{stopped, false, "no running launches; 2 stopped (ps --all)"},
		{stopped, true, "no recorded launches"},
	}
	for _, tt := range tests {
		if got := EmptyCensusText(proc.Default, tt.st, tt.all); got != tt.want {
			t.Errorf("EmptyCensusText(%s, all %v) = %q, want %q", tt.st.Dir, tt.all, got, tt.want)
		}
	}
}
