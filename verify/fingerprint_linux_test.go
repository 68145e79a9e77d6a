package verify

import (
	"bufio"
	"os"
	"os/exec"
	"testing"

	"github.com/childproof/childproof/proc"
)

// TestFingerprintRealUID: a fingerprint's UID is the real uid (the first
// of status's Uid line), whether it comes from the pidfd or from status:
// a process whose real and effective uids differ shows its real one.
func TestFingerprintRealUID(t *testing.T) {
	self, err := TakeFingerprint(proc.Default, os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	if self.UID != os.Getuid() {
		t.Errorf("own fingerprint UID %d, want the real uid %d", self.UID, os.Getuid())
	}
	if os.Geteuid() != 0 {
		t.Skip("a process with real and effective uids apart needs root")
	}
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("needs python3 to set its real uid apart from its effective one")
	}
	cmd := exec.Command(py, "-c", "import os, sys\nos.setresuid(65534, 0, 0)\nprint('ready', flush=True)\nsys.stdin.read()")
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { in.Close(); cmd.Wait() })
	if line, err := bufio.NewReader(out).ReadString('\n'); err != nil || line != "ready\n" {
		t.Fatalf("child: %q, %v", line, err)
	}
	pid := cmd.Process.Pid
	st, err := proc.Default.Status(pid)
	if err != nil || st.UID != 65534 || st.EUID != 0 {
		t.Fatalf("child status uid %d euid %d (%v), want 65534 and 0", st.UID, st.EUID, err)
	}
	for _, p := range []proc.FS{proc.Default, {Root: "/proc/"}} {
		fp, err := TakeFingerprint(p, pid)
		if err != nil {
			t.Fatal(err)
		}
		if fp.UID != 65534 {
			t.Errorf("through root %q: fingerprint UID %d, want the real uid 65534", p.Root, fp.UID)
		}
	}
}
