package statedir

import (
	"os"
	"os/exec"
	"testing"

	"golang.org/x/sys/unix"
)

// TestLockForkWindow: a launch lock let go of while a copy of its
// descriptor lives on in another process (a process forked, by another
// goroutine, between its fork and its exec) is taken once that copy
// closes, not refused as held by another launch (series B2 at 6980ecc:
// TestUpWith's restart of web was refused; up starts launches side by
// side).
func TestLockForkWindow(t *testing.T) {
	st, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	l, err := st.Lock("n")
	if err != nil {
		t.Fatal(err)
	}
	// The copy: a child that holds the lock's open file as fd 3 until
	// its stdin closes.
	child := exec.Command("sh", "-c", "read x")
	dup, err := unix.Dup(l.f.fd1 - 1)
	if err != nil {
		t.Fatal(err)
	}
	lf := os.NewFile(uintptr(dup), "lock") // the lock's open file
	child.ExtraFiles = []*os.File{lf}
	in, err := child.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	err = child.Start()
	lf.Close() // the child's copy is the one left
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		in.Close()
		child.Wait() // the child this test started
	})
	l.Unlock()
	// The lock is still held (by the child's copy): the case to cover.
	f, err := os.Open(st.Files.Lock("n"))
	if err != nil {
		t.Fatal(err)
	}
	if err := TryLock(f); err != ErrWouldBlock {
		t.Fatalf("the child's copy does not hold the lock: %v", err)
	}
	f.Close()
	got := make(chan error, 1)
	go func() {
		l2, err := st.Lock("n")
		if err == nil {
			l2.Unlock()
		}
		got <- err
	}()
	in.Close() // the copy closes (as at its exec)
	if err := <-got; err != nil {
		t.Errorf("the lock was refused while the copy closed: %v", err)
	}
}
