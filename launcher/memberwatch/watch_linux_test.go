package memberwatch

import (
	"os"
	"os/exec"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/childproof/childproof/proc"
)

// TestLook: the first look judges the tree as it is; a member that
// appears after it is fresh once, and warned of once.
func TestLook(t *testing.T) {
	cmd := exec.Command("sleep", "60")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	child := cmd.Process.Pid
	self := os.Getpid()
	p := proc.Default
	var w Watch
	if !w.Due(false) || !w.Due(true) {
		t.Fatal("a watch that never looked is not due")
	}
	if got := w.Look(p, []int{self}, false); len(got) != 0 {
		t.Errorf("first look: fresh %v, want none (it judges the tree as it is)", got)
	}
	if w.Due(false) {
		t.Error("due again at once without an event")
	}
	if !w.Due(true) {
		t.Error("not due on an event")
	}
	if diff := cmp.Diff([]int{child}, w.Look(p, []int{self, child}, true)); diff != "" {
		t.Errorf("second look's fresh members (-want +got):\n%s", diff)
	}
	if got := w.Look(p, []int{self, child}, true); len(got) != 0 {
		t.Errorf("third look: fresh %v, want none", got)
	}
	if !w.Warn(child) || w.Warn(child) {
		t.Error("Warn: want true once, then false")
	}
}
