package statedir

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// scratchMounts mounts, in a mount namespace of its own, file systems
// under $1 for scratchIn to judge, says "ready" and waits for its stdin
// to end.
const scratchMounts = `set -e
cd "$1"
mkdir big small ro ramfs
mount -t tmpfs -o size=512m tmpfs big
mount -t tmpfs -o size=1m tmpfs small
mount -t tmpfs -o size=512m,ro tmpfs ro
mount -t ramfs ramfs ramfs
echo ready
exec cat >/dev/null
`

// TestScratchParentFallbacks: $XDG_RUNTIME_DIR, else /dev/shm, is taken
// only when it is a tmpfs this process can write with 256 MiB free; a
// missing, small, read-only or other file system falls through, to
// os.TempDir() in the end; $TMPDIR set wins. The file systems are
// mounted in a mount namespace of their own and reached through its
// process's /proc/PID/root.
func TestScratchParentFallbacks(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("mounting a tmpfs needs root")
	}
	unshare, err := exec.LookPath("unshare")
	if err != nil {
		t.Skip("no unshare (Debian package util-linux)")
	}
	d := t.TempDir()
	ns := exec.Command(unshare, "--mount", "--propagation", "private", "sh", "-c", scratchMounts, "sh", d)
	in, err := ns.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := ns.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := ns.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		in.Close() // its cat ends, and the mounts with its namespace
		ns.Wait()
	})
	if line, _ := bufio.NewReader(out).ReadString('\n'); line != "ready\n" {
		in.Close()
		err := ns.Wait()
		t.Skipf("no mount namespace with tmpfs mounts here (%v)", err)
	}
	root := fmt.Sprintf("/proc/%d/root%s/", ns.Process.Pid, d)
	big, small, ro, ramfs, missing := root+"big", root+"small", root+"ro", root+"ramfs", root+"missing"
	tmp := os.TempDir()
	for _, c := range []struct {
		what string
		dirs []string
		want string
	}{
		{"roomy", []string{big, small}, big},
		{"too small", []string{small, big}, big},
		{"read-only", []string{ro, big}, big},
		{"missing", []string{missing, big}, big},
		{"not a tmpfs", []string{ramfs, big}, big},
		{"unset", []string{"", big}, big},
		{"neither", []string{small, ro}, tmp},
		{"none", []string{"", missing}, tmp},
	} {
		if got := scratchIn(c.dirs...); got != c.want {
			t.Errorf("%s: scratchIn(%q) = %q, want %q", c.what, c.dirs, got, c.want)
		}
	}
	t.Setenv("TMPDIR", d)
	t.Setenv("XDG_RUNTIME_DIR", big)
	if diff := cmp.Diff(d, ScratchParent()); diff != "" {
		t.Errorf("ScratchParent() with $TMPDIR set (-want +got):\n%s", diff)
	}
	t.Setenv("TMPDIR", "")
	if diff := cmp.Diff(big, ScratchParent()); diff != "" {
		t.Errorf("ScratchParent() with $XDG_RUNTIME_DIR a roomy tmpfs (-want +got):\n%s", diff)
	}
}
