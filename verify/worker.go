package verify

import (
	"cmp"
	"slices"
	"strings"

	"github.com/childproof/childproof/internal/sockdiag"
	"github.com/childproof/childproof/proc"
	"github.com/childproof/childproof/spec"
)

// DeclaredWorker finds the worker a launch's selector points at among
// tree. With a comm or exe it is the matching process, and decided is
// true even when none matches yet. Without one it is the in-tree owner of
// a declared port nearest the root, else 0.
//
// execComm, when not nil, gives the comm a process had at its last exec
// (the launcher's exec-time capture), and a comm selector matches that
// too. So a server that renames itself right after start is still the
// process the selector named: setproctitle also sets comm, and "gunicorn"
// becomes "gunicorn: maste".
func DeclaredWorker(p proc.FS, tree []int, comm, exe string, ports []spec.Port, execComm func(pid int) string) (pid int, decided bool) {
	return declaredWorker(p, nil, tree, comm, exe, ports, execComm)
}

// DeclaredWorkerIn is DeclaredWorker within look k (nil: none): the
// owner of a declared port is found with the look's listeners and holders.
func DeclaredWorkerIn(p proc.FS, k *Look, tree []int, comm, exe string, ports []spec.Port, execComm func(pid int) string) (pid int, decided bool) {
	return declaredWorker(p, k, tree, comm, exe, ports, execComm)
}

// declaredWorker is DeclaredWorker within look k (nil: none).
func declaredWorker(p proc.FS, k *Look, tree []int, comm, exe string, ports []spec.Port, execComm func(pid int) string) (pid int, decided bool) {
	if comm != "" || exe != "" {
		found := matchWorker(p, tree, comm, exe, execComm)
		if len(found) == 0 {
			return 0, true
		}
		// Of several matches, one that holds a declared port: after
		// haproxy -W's master re-execs into wait mode, its worker holds
		// the socket and the master none.
		if holders := portHolders(p, found, ports); len(holders) > 0 {
			return shallowest(p, holders), true
		}
		return shallowest(p, found), true
	}
	if len(tree) == 0 {
		return 0, false
	}
	for _, pt := range ports {
		ls, err := k.lookup(p, first(tree), pt.Number)
		if err != nil {
			continue
		}
		for _, l := range ls {
			if pids := k.treeOwners(p, l.Inode, tree); len(pids) > 0 {
				return shallowest(p, pids), false
			}
		}
	}
	return 0, false
}

// Workers returns the workers of a multi-process job among tree. They are
// the exec'd processes matching comm or exe that have no matching exec'd
// descendant, such as the ranks below an agent of the same program. When
// there are more than n, it returns the n deepest. Fewer than n means not
// all are there yet.
//
// The workers come in the order they started, which is rank order: by
// start time, then by pid for ranks started in the same clock tick. Pid
// alone would not do, because pids wrap at pid_max and a rank started
// after the wrap has the lower pid; its delta on relaunch was then judged
// against the other rank's record.
//
// A worker is a process that exec'd the selected program. A child that
// only forked from a matching process is a helper (Execd false), never a
// worker, and does not hide its parent as a "matching descendant": a
// DataLoader, a tokenizer pool, a resource tracker forked without exec. A
// process whose exec the launcher captured (execComm non-empty) exec'd.
func Workers(p proc.FS, tree []int, comm, exe string, n int, execComm func(pid int) string) []int {
	var found []int
	for _, pid := range matchWorker(p, tree, comm, exe, execComm) {
		if execComm != nil && execComm(pid) != "" || Execd(p, pid, tree) {
			found = append(found, pid)
		}
	}
	if len(found) < 2 && len(found) <= n {
		// No other match to hide below it: the descendants are not read
		// (reading a multi-threaded process's task/*/children makes its
		// reaping cost the reaper milliseconds of system time).
		return found
	}
	var leaves []int
	for _, pid := range found {
		below := p.Descendants(pid)
		if !slices.ContainsFunc(found, func(o int) bool { return o != pid && slices.Contains(below, o) }) {
			leaves = append(leaves, pid)
		}
	}
	if len(leaves) > n {
		depth := map[int]int{}
		for _, pid := range leaves {
			depth[pid] = len(p.Ancestors(pid, 0))
		}
		slices.SortStableFunc(leaves, func(a, b int) int {
			if depth[a] != depth[b] {
				return depth[b] - depth[a]
			}
			return a - b
		})
		leaves = leaves[:n]
	}
	start := map[int]uint64{}
	for _, pid := range leaves {
		if st, err := p.Stat(pid); err == nil {
			start[pid] = st.StartTime
		}
	}
	slices.SortFunc(leaves, func(a, b int) int {
		if c := cmp.Compare(start[a], start[b]); c != 0 {
			return c
		}
		return a - b
	})
	return leaves
}

// matchWorker returns the processes of tree whose comm or exe is the
// wanted one.
func matchWorker(p proc.FS, tree []int, comm, exe string, execComm func(int) string) []int {
	var found []int
	resolved := spec.ResolveExe(exe)
	for _, pid := range tree {
		if comm != "" {
			if c, err := p.Comm(pid); err == nil && c == comm || execComm != nil && execComm(pid) == comm {
				found = append(found, pid)
			}
			continue
		}
		if e, err := p.Exe(pid); err == nil {
			// /proc/PID/exe is the resolved path: compare with the
			// selector resolved too (/usr/bin/python3 → python3.11).
			e = strings.TrimSuffix(e, " (deleted)")
			if e == exe || e == resolved {
				found = append(found, pid)
			}
		}
	}
	return found
}

// portHolders returns the pids of among that hold a listener on one of
// ports.
func portHolders(p proc.FS, among []int, ports []spec.Port) []int {
	if len(among) < 2 {
		return nil
	}
	var out []int
	for _, pt := range ports {
		ls, err := sockdiag.LookupFor(p.Root, among[0], pt.Number)
		if err != nil {
			continue
		}
		for _, l := range ls {
			for _, pid := range p.FindSocketOwners(l.Inode, among) {
				if !slices.Contains(out, pid) {
					out = append(out, pid)
				}
			}
		}
	}
	return out
}

// shallowest returns the pid of pids that is nearest to the root. A child
// that was forked but has not exec'd yet looks like its parent (same comm,
// exe and inherited sockets) for a moment; the stable process is the parent.
func shallowest(p proc.FS, pids []int) int {
	if len(pids) == 1 {
		return pids[0] // nothing to compare: no ancestors to read
	}
	best, bestDepth := pids[0], -1
	for _, pid := range pids {
		d := len(p.Ancestors(pid, 0))
		if bestDepth < 0 || d < bestDepth {
			best, bestDepth = pid, d
		}
	}
	return best
}

// Selection is which of a launch's selectors chooses its worker.
type Selection uint8

// The selections, in the order they apply (see SelectionOf).
const (
	// SelectLaunched: no selector and no port: the launched process, once
	// it has exec'd.
	SelectLaunched Selection = iota
	// SelectComm: the process whose comm is worker.comm.
	SelectComm
	// SelectExe: the process whose executable is worker.exe.
	SelectExe
	// SelectPort: the in-tree owner of a declared port, the first port's
	// first.
	SelectPort
)

// SelectionOf is the selector that chooses l's worker, as DeclaredWorker
// and the launcher go: worker.comm over worker.exe over the declared ports
// over the launched process.
func SelectionOf(l *spec.Launch) Selection {
	switch {
	case l.Worker.Comm != "":
		return SelectComm
	case l.Worker.Exe != "":
		return SelectExe
	case len(l.Ports) > 0:
		return SelectPort
	}
	return SelectLaunched
}
