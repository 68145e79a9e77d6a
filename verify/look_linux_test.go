package verify

import (
	"net"
	"os"
	"slices"
	"strconv"
	"testing"

	"github.com/childproof/childproof/proc"
)

// TestLookAgain: a look begun with Again finds the holders a fresh look
// finds, asking first about the fd where the look before it found the
// socket, and reading the fd table when the socket moved to another fd.
func TestLookAgain(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	port := ln.Addr().(*net.TCPAddr).Port
	self := os.Getpid()
	tree := []int{self}
	p := proc.Default

	k := NewLook(p)
	hs, err := HoldersIn(p, k, port, tree)
	if err != nil || len(hs) != 1 || !slices.Equal(hs[0].Pids, tree) {
		t.Fatalf("HoldersIn = %+v, %v; want one held by %d", hs, err, self)
	}
	at := k.at[heldSocket{self, hs[0].Inode}]
	if at == "" {
		t.Fatalf("the look did not note where pid %d holds socket %d", self, hs[0].Inode)
	}

	// The socket where it was: the look after finds it there.
	k2 := k.Again(p)
	hs2, err := HoldersIn(p, k2, port, tree)
	if err != nil || len(hs2) != 1 || !slices.Equal(hs2[0].Pids, tree) {
		t.Fatalf("HoldersIn after Again = %+v, %v", hs2, err)
	}
	if got := k2.at[heldSocket{self, hs[0].Inode}]; got != at {
		t.Errorf("look after Again notes fd %q, want %q", got, at)
	}

	// The socket moved to another fd: found there, by its fd table.
	f, err := ln.(*net.TCPListener).File()
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	ln.Close()
	k3 := k2.Again(p)
	hs3, err := HoldersIn(p, k3, port, tree)
	if err != nil || len(hs3) != 1 || !slices.Equal(hs3[0].Pids, tree) {
		t.Fatalf("HoldersIn after the socket moved = %+v, %v", hs3, err)
	}
	if got, want := k3.at[heldSocket{self, hs[0].Inode}], strconv.Itoa(int(f.Fd())); got != want {
		t.Errorf("look after the move notes fd %q, want %q", got, want)
	}

	// A look after no look is none.
	if (*Look)(nil).Again(p) != nil {
		t.Error("Again of a nil look is not nil")
	}
}
