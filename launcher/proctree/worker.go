package proctree

import (
	"slices"

	"github.com/childproof/childproof/proc"
	"github.com/childproof/childproof/spec"
	"github.com/childproof/childproof/verify"
)

// PickWorker chooses the worker of launch l among tree (its live
// processes, as p shows them; root is the launched process): the process
// its worker selector names, else the in-tree owner of a declared port;
// with neither, the root once it has exec'd (a dispatch script's bash must
// exec the worker). It returns 0 while the worker is not there yet.
//
// execComm, when not nil, gives a process's comm at its last exec (from
// the exec-time capture), which a comm selector also matches.
func PickWorker(p proc.FS, l *spec.Launch, root int, tree []int, execComm func(int) string) int {
	return PickWorkerIn(p, nil, l, root, tree, execComm)
}

// PickWorkerIn is PickWorker within look k (nil: none).
func PickWorkerIn(p proc.FS, k *verify.Look, l *spec.Launch, root int, tree []int, execComm func(int) string) int {
	if pid, decided := verify.DeclaredWorkerIn(p, k, tree, l.Worker.Comm, l.Worker.Exe, l.Ports, execComm); decided || pid != 0 {
		return pid
	}
	if len(l.Ports) > 0 {
		return 0 // wait for the listener
	}
	if len(l.Dispatch) > 0 {
		if c, _ := p.Comm(root); c == "bash" {
			return 0
		}
	}
	if slices.Contains(tree, root) {
		return root
	}
	return 0
}
