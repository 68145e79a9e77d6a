package proctree

import (
	"os"
	"testing"
)

// TestNewCgroupKeepsFresh: a launch's new cgroup, empty until its tree
// starts in it, is not swept as a leftover by another launch of the same
// name (parallel tests, each with a state dir of its own).
func TestNewCgroupKeepsFresh(t *testing.T) {
	first, f1 := NewCgroup("same-name")
	if f1 == nil {
		t.Skip("no cgroup to be had here (not root, or no writable cgroup v2)")
	}
	defer RemoveCgroup(first)
	defer f1.Close()
	second, f2 := NewCgroup("same-name")
	if f2 != nil {
		defer RemoveCgroup(second)
		defer f2.Close()
	}
	if _, err := os.Stat(first); err != nil {
		t.Errorf("the first launch's empty cgroup %s went when a second of the same name was made: %v", first, err)
	}
}
