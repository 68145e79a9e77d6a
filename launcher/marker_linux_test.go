package launcher

import (
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/childproof/childproof/launcher/proctree"
	"github.com/childproof/childproof/proc"
)

// TestMarkerPidsLargeEnviron: a process whose environment is larger than
// the scan's first buffer, the marker last, is found; one without it is not.
func TestMarkerPidsLargeEnviron(t *testing.T) {
	marker := proctree.NewMarker("big")
	big := "FILLER=" + strings.Repeat("x", 40_000)
	with := exec.Command("sleep", "600")
	with.Env = []string{big, MarkerVar + "=" + marker}
	without := exec.Command("sleep", "600")
	without.Env = []string{big, MarkerVar + "=" + proctree.NewMarker("big")}
	for _, c := range []*exec.Cmd{with, without} {
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
		defer func() { c.Process.Kill(); c.Wait() }()
	}
	waitFor(t, "sleep to exec", func() bool {
		c1, _ := proc.Default.Comm(with.Process.Pid)
		c2, _ := proc.Default.Comm(without.Process.Pid)
		return c1 == "sleep" && c2 == "sleep"
	})
	got := proctree.MarkerPids(proc.Default, marker)[marker]
	if !slices.Contains(got, with.Process.Pid) || slices.Contains(got, without.Process.Pid) {
		t.Fatalf("MarkerPids = %v; want %d and not %d", got, with.Process.Pid, without.Process.Pid)
	}
}
