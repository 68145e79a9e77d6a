package proctree

import (
	"slices"

	"github.com/childproof/childproof/proc"
	"github.com/childproof/childproof/spec"
	"github.com/childproof/childproof/verify"
)

// PortOwner is a member of the tree holding a declared port: plain data,
// safe for concurrent use once made.
type PortOwner struct {
	Pid, Port int
	Comm, Exe string
}

// PortOwners lists the members of tree that hold a declared port of l,
// asked within look k (nil: none).
func PortOwners(p proc.FS, k *verify.Look, l *spec.Launch, tree []int) []PortOwner {
	var out []PortOwner
	for _, pt := range l.Ports {
		hs, err := verify.HoldersIn(p, k, pt.Number, tree)
		if err != nil {
			continue
		}
		for _, h := range hs {
			if !h.InTree {
				continue
			}
			for _, pid := range h.Pids {
				if slices.ContainsFunc(out, func(o PortOwner) bool { return o.Pid == pid && o.Port == pt.Number }) {
					continue
				}
				o := PortOwner{Pid: pid, Port: pt.Number}
				o.Comm, _ = p.Comm(pid)
				o.Exe, _ = p.Exe(pid)
				out = append(out, o)
			}
		}
	}
	return out
}

// ForeignHolder returns a listener on a declared port of l that no member
// of tree holds, if there is one, asked within look k (nil: none).
func ForeignHolder(p proc.FS, k *verify.Look, l *spec.Launch, tree []int) *verify.Holder {
	for _, pt := range l.Ports {
		hs, err := verify.HoldersIn(p, k, pt.Number, tree)
		if err != nil {
			continue
		}
		for i := range hs {
			if !hs[i].InTree {
				return &hs[i]
			}
		}
	}
	return nil
}

// PortState reports whether worker holds a listener on every declared
// port of l, and a foreign holder of one if there is one, asked within
// look k (nil: none).
func PortState(p proc.FS, k *verify.Look, l *spec.Launch, worker int, tree []int) (bool, *verify.Holder) {
	owned := true
	var foreign *verify.Holder
	for _, pt := range l.Ports {
		hs, err := verify.HoldersIn(p, k, pt.Number, tree)
		if err != nil {
			return false, nil
		}
		has := false
		for i, h := range hs {
			if slices.Contains(h.Pids, worker) {
				has = true
			} else if !h.InTree && foreign == nil {
				foreign = &hs[i]
			} else if h.InTree {
				has = true // another member holds it: verification says so
			}
		}
		if !has {
			owned = false
		}
	}
	return owned, foreign
}
