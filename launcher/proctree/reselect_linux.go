package proctree

import (
	"github.com/childproof/childproof/proc"
	"github.com/childproof/childproof/spec"
	"github.com/childproof/childproof/verify"
)

// ReselectPid is the worker l's selector picks among the live processes
// live: the first of its roles' processes, the first of its N workers,
// else the process its comm or exe names or the owner of a declared port;
// 0 when none is there or l selects by nothing but the launched process.
func ReselectPid(p proc.FS, l *spec.Launch, live []int) int {
	pid := 0
	if len(l.Roles) > 0 {
		if pids, _, _ := SelectRoles(p, l, live, nil); len(pids) > 0 {
			pid = pids[0]
		}
	} else if l.Worker.N() > 1 {
		if ws := verify.Workers(p, live, l.Worker.Comm, l.Worker.Exe, l.Worker.N(), nil); len(ws) > 0 {
			pid = ws[0]
		}
	} else if l.Worker.Comm != "" || l.Worker.Exe != "" || len(l.Ports) > 0 {
		pid, _ = verify.DeclaredWorker(p, live, l.Worker.Comm, l.Worker.Exe, l.Ports, nil)
	}
	return pid
}
