package treelook

import (
	"os"
	"testing"
	"time"

	"github.com/childproof/childproof/proc"
)

// TestChanged: the first look is a full one, the same look right after
// it is not, and Forget and Keep decide the next.
func TestChanged(t *testing.T) {
	self := os.Getpid()
	l := &Looker{Proc: proc.Default, Members: func() []int { return []int{self} }}
	defer l.Close()
	if tree := l.List(); len(tree) != 1 || tree[0] != self || l.TreeSig() == "" {
		t.Fatalf("List: %v (signature %q), want [%d] and a signature", tree, l.TreeSig(), self)
	}
	if !l.Changed() {
		t.Error("the first look is not a full one")
	}
	// The full look stands for fullLookEvery: here, whatever the load.
	l.lookAt = time.Now().Add(time.Hour)
	restore := l.Keep()
	if l.Changed() {
		t.Error("the same look right after a full one is full again")
	}
	l.Forget()
	if l.Sig() != "" {
		t.Errorf("Sig after Forget: %q, want empty", l.Sig())
	}
	restore()
	if l.Changed() {
		t.Error("a kept look put back is not standing")
	}
	l.Forget()
	if !l.Changed() {
		t.Error("a look after Forget is not a full one")
	}
}
