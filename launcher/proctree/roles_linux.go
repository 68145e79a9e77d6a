package proctree

import (
	"slices"

	"github.com/childproof/childproof/proc"
	"github.com/childproof/childproof/spec"
	"github.com/childproof/childproof/verify"
)

// SelectRoles selects the processes of each worker role of l among tree,
// the primary role's first: a role of count N, its N workers
// (verify.Workers); a role of one, the process its selector names (of
// several, one holding a port the role lists, else the shallowest). ok
// only once every role has all of its processes.
func SelectRoles(p proc.FS, l *spec.Launch, tree []int, execComm func(int) string) (pids []int, roles []string, ok bool) {
	order := []int{l.PrimaryRole()}
	for i := range l.Roles {
		if i != order[0] {
			order = append(order, i)
		}
	}
	for _, i := range order {
		r := l.Roles[i]
		var got []int
		if r.Worker.N() > 1 {
			got = verify.Workers(p, tree, r.Worker.Comm, r.Worker.Exe, r.Worker.N(), execComm)
			if len(got) < r.Worker.N() {
				return nil, nil, false
			}
		} else {
			var ports []spec.Port
			for _, pt := range l.Ports {
				if slices.Contains(r.Ports, pt.Name) {
					ports = append(ports, pt)
				}
			}
			pid, _ := verify.DeclaredWorker(p, tree, r.Worker.Comm, r.Worker.Exe, ports, execComm)
			if pid == 0 {
				return nil, nil, false
			}
			got = []int{pid}
		}
		for _, pid := range got {
			pids = append(pids, pid)
			roles = append(roles, r.Name)
		}
	}
	return pids, roles, true
}

// RoleOwners is Check.Owners for the worker roles of l whose processes
// are pids (roles[i] the role of pids[i]): each port a role lists, with
// that role's processes; nil without roles.
func RoleOwners(l *spec.Launch, pids []int, roles []string) map[int]verify.PortOwners {
	if len(l.Roles) == 0 {
		return nil
	}
	out := map[int]verify.PortOwners{}
	for _, pt := range l.Ports {
		r := l.RoleOfPort(pt.Name)
		if r == nil {
			continue
		}
		po := verify.PortOwners{Role: r.Name, Pids: []int{}}
		for i, pid := range pids {
			if roles[i] == r.Name {
				po.Pids = append(po.Pids, pid)
			}
		}
		out[pt.Number] = po
	}
	return out
}
