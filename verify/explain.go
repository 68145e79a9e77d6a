package verify

import (
	"slices"

	"github.com/childproof/childproof/proc"
)

// FrozenNote is the reminder explain prints: an environ is frozen at exec.
const FrozenNote = "/proc/PID/environ is the block a process was exec'd with, frozen at its exec: a shell's later export or unset never shows there, so only the worker's own record is evidence"

// Role is a process's place in an Explain (ExplainRow.Role).
type Role string

// The roles, from the outermost ancestor down.
const (
	RoleAncestor Role = "ancestor"
	RoleRoot     Role = "root"
	// RoleChain: a process between the root and the worker.
	RoleChain      Role = "chain"
	RoleWorker     Role = "worker"
	RoleDescendant Role = "descendant"
)

// VarState is a name's state in one process's environ (ExplainVar.State).
type VarState string

// The states of a name.
const (
	VarSet   VarState = "set"
	VarEmpty VarState = "empty"
	VarUnset VarState = "unset"
	// VarUnreadable: the block cannot be read, or the process wrote a
	// title over it (setproctitle).
	VarUnreadable VarState = "unreadable"
)

// ExplainRow is one process and the state of each asked name in its
// environ. It is plain data, safe for concurrent use while no one changes
// it.
type ExplainRow struct {
	Pid  int      `json:"pid"`
	PPid int      `json:"ppid"`
	Comm string   `json:"comm"`
	Argv []string `json:"argv"`
	Role Role     `json:"role"`
	// Helper marks a descendant that only forked from its parent (Execd
	// false): its block is its parent's, and it is not judged.
	Helper bool         `json:"helper,omitempty"`
	Vars   []ExplainVar `json:"vars"`
}

// ExplainVar is NAME's state in one process's environ. It is plain data,
// safe for concurrent use while no one changes it.
type ExplainVar struct {
	Name   string   `json:"name"`
	State  VarState `json:"state"`
	Digest string   `json:"digest,omitempty"`
	Value  *string  `json:"value,omitempty"`
	// Changed is set when the state differs from the parent's.
	Changed bool `json:"changed"`
	// Evidence is EvidenceExec on the worker's row when its state comes
	// from the block captured at its exec (the worker rewrote its live
	// block since), as verify judges it; empty: the live block.
	Evidence string `json:"evidence,omitempty"`
}

// Explain lists root's ancestors (outermost first), root, the chain down to
// worker and the other descendants, with each name's state in each environ.
// worker 0 means the deepest descendant of root. ev is the worker's
// exec-time evidence, nil for none. The worker's row is judged by ev
// wherever verify would judge the worker by it, that is when its live
// block was rewritten and the evidence still holds. So explain never
// contradicts verify.
func (v *Verifier) Explain(root, worker int, names []string, ev *ExecEnv) []ExplainRow {
	return v.ExplainTree(root, worker, names, ev, TreeCheck{})
}

// ExplainTree is Explain with the tree judgement's evidence: a member's
// row reads t.Evidence where JudgeTree would (its exec-time capture while
// it holds), and a fork-only descendant's row is marked Helper.
func (v *Verifier) ExplainTree(root, worker int, names []string, ev *ExecEnv, t TreeCheck) []ExplainRow {
	p := v.Proc
	if worker == 0 {
		worker = deepestDescendant(p, root)
	}
	anc := p.Ancestors(root, 0)
	slices.Reverse(anc)
	var pids []int
	roles := map[int]Role{}
	for _, a := range anc {
		pids = append(pids, a)
		roles[a] = RoleAncestor
	}
	pids = append(pids, root)
	roles[root] = RoleRoot
	for _, c := range chain(p, root, worker) {
		if c != root {
			pids = append(pids, c)
			roles[c] = RoleChain
		}
	}
	if worker != root {
		pids = append(pids, worker)
	}
	roles[worker] = RoleWorker
	for _, d := range p.Descendants(root) {
		if !slices.Contains(pids, d) {
			pids = append(pids, d)
			roles[d] = RoleDescendant
		}
	}
	members := append([]int{root}, p.Descendants(root)...)
	rows := make([]ExplainRow, 0, len(pids))
	byPid := map[int]int{}
	for _, pid := range pids {
		row := ExplainRow{Pid: pid, Role: roles[pid]}
		if s, err := p.Stat(pid); err == nil {
			row.PPid, row.Comm = s.PPid, s.Comm
		}
		row.Argv, _ = p.Cmdline(pid)
		if row.Argv == nil {
			row.Argv = []string{}
		}
		raw, err := p.EnvironRaw(pid)
		// A name missing from a block the process wrote a title over
		// (setproctitle) is unreadable, not unset; vars are what the
		// title left, judged as tree.go does.
		vars, rewrote := proc.ParseEnviron(raw), false
		if err == nil {
			le := p.ParseLive(pid, raw)
			vars, rewrote = le.Vars, le.Partial()
		}
		var exec *ExecEnv
		if pid == worker && (err != nil || rewrote) {
			if ok, _ := ev.usable(p, pid); ok {
				exec = ev
			}
		} else if pid != worker && roles[pid] != RoleAncestor && t.Evidence != nil {
			if mev := t.Evidence(pid); mev != nil {
				if ok, _ := mev.usable(p, pid); ok {
					exec = mev
				}
			}
		}
		if roles[pid] == RoleDescendant {
			row.Helper = !(t.Execd != nil && t.Execd(pid)) && !Execd(p, pid, members)
		}
		for _, n := range names {
			ev := ExplainVar{Name: n, State: VarUnreadable}
			if exec != nil {
				ev = v.execVar(exec, n)
			} else if err == nil {
				if val, ok := proc.Lookup(vars, n); ok {
					ev.State = VarSet
					if val == "" {
						ev.State = VarEmpty
					}
					ev.Digest = v.State.Digest(n, val)
					if v.ShowValues {
						s := val
						ev.Value = &s
					}
				} else if !rewrote {
					ev.State = VarUnset
				}
			}
			if i, ok := byPid[row.PPid]; ok {
				for _, pv := range rows[i].Vars {
					if pv.Name == n && pv.State != VarUnreadable && ev.State != VarUnreadable && (pv.State != ev.State || pv.Digest != ev.Digest) {
						ev.Changed = true
					}
				}
			}
			row.Vars = append(row.Vars, ev)
		}
		byPid[pid] = len(rows)
		rows = append(rows, row)
	}
	return rows
}

// execVar is name n's state in exec-time evidence e.
func (v *Verifier) execVar(e *ExecEnv, n string) ExplainVar {
	ev := ExplainVar{Name: n, State: VarUnset, Evidence: EvidenceExec}
	if e.Vars == nil {
		if d, ok := e.Digests[n]; ok {
			ev.State, ev.Digest = VarSet, d
			if d == v.State.Digest(n, "") {
				ev.State = VarEmpty
			}
		}
		return ev
	}
	if val, ok := proc.Lookup(e.Vars, n); ok {
		ev.State, ev.Digest = VarSet, v.State.Digest(n, val)
		if val == "" {
			ev.State = VarEmpty
		}
		if v.ShowValues {
			ev.Value = &val
		}
	}
	return ev
}

// deepestDescendant returns the deepest process below root, following the
// first child at each level; root itself when it has no children.
func deepestDescendant(p proc.FS, root int) int {
	cur := root
	for range 1024 {
		kids, err := p.Children(cur)
		if err != nil || len(kids) == 0 {
			return cur
		}
		cur = kids[0]
	}
	return cur
}
