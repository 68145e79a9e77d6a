package treelook

import (
	"net"
	"os"
	"reflect"
	"testing"
	"time"

	"github.com/childproof/childproof/proc"
	"github.com/childproof/childproof/spec"
	"github.com/childproof/childproof/verify"
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

// TestSeed: a full look seeded with what Changed asked answers the
// declared port's holders as a look that asks afresh does; a look begun
// after List without Changed is seeded with nothing.
func TestSeed(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	port := ln.Addr().(*net.TCPAddr).Port
	self := os.Getpid()
	l := &Looker{Proc: proc.Default, Ports: []spec.Port{{Number: port}}, Members: func() []int { return []int{self} }}
	defer l.Close()
	tree := l.List()
	l.Changed()
	seeded := verify.NewLook(proc.Default)
	l.Seed(seeded)
	got, err := verify.HoldersIn(proc.Default, seeded, port, tree)
	if err != nil {
		t.Fatal(err)
	}
	want, err := verify.HoldersIn(proc.Default, verify.NewLook(proc.Default), port, tree)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) || len(got) != 1 || !got[0].InTree {
		t.Fatalf("seeded look's holders %+v, a fresh look's %+v: want the same one, held in the tree", got, want)
	}
	l.List()
	if len(l.asked) != 0 {
		t.Fatalf("after List, Changed's answers %v are still there to seed a look", l.asked)
	}
}
