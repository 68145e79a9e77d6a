package noinherit

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/sys/unix"
)

// TestRun has a child look for a descriptor of the caller made
// inheritable (as a shell's `exec 7>file` leaves one): the child must not
// have it, and the caller's must be inheritable again afterwards.
func TestRun(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	fd := int(w.Fd())
	if _, err := unix.FcntlInt(uintptr(fd), unix.F_SETFD, 0); err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	cmd := exec.Command("/bin/sh", "-c", fmt.Sprintf("if [ -e /proc/self/fd/%d ]; then echo inherited; else echo not; fi", fd))
	cmd.Stdout = &out
	if err := Run(cmd.Start); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff("not\n", out.String()); diff != "" {
		t.Errorf("the child (-want +got):\n%s", diff)
	}
	flags, err := unix.FcntlInt(uintptr(fd), unix.F_GETFD, 0)
	if err != nil {
		t.Fatal(err)
	}
	if flags&unix.FD_CLOEXEC != 0 {
		t.Errorf("fd %d is close-on-exec after Run; want it as it was", fd)
	}
}

// TestInheritedFDs lists this process's inheritable descriptors: one made
// so is listed, a close-on-exec one is not.
func TestInheritedFDs(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	if _, err := unix.FcntlInt(w.Fd(), unix.F_SETFD, 0); err != nil {
		t.Fatal(err)
	}
	got := map[int]bool{}
	for _, fd := range inheritedFDs() {
		got[fd] = true
	}
	want := map[int]bool{int(w.Fd()): true, int(r.Fd()): false}
	for fd, in := range want {
		if got[fd] != in {
			t.Errorf("fd %d listed %v, want %v", fd, got[fd], in)
		}
	}
}
