package verify

import (
	"fmt"
	"slices"
	"strings"

	"github.com/childproof/childproof/proc"
)

// KindEnvDiverged: an exec'd member of the launched tree other than the
// worker carries a protected name with a value other than the intended
// one (contract §3, "The whole tree is under proof").
const KindEnvDiverged Kind = "env-diverged"

// Member evidence sources (MemberCheck.Evidence): EvidenceExec and
// EvidenceLive as for the worker, or EvidenceUnreadable when neither
// exists (the member rewrote its block and nothing was captured at its
// exec, or its environ cannot be read).
const EvidenceUnreadable = "unreadable"

// TreeCheck says which processes JudgeTree judges and with what evidence.
// JudgeTree only reads a TreeCheck: it is safe for concurrent use while no
// one changes it.
type TreeCheck struct {
	// Tree are the launched tree's live members.
	Tree []int
	// Workers are the processes the worker check judged already (their
	// missing or differing names are env-missing and env-mismatch there);
	// JudgeTree skips them.
	Workers []int
	// Evidence returns a member's exec-time evidence (the launcher's
	// capture while it traced the launch, or what the record kept of it);
	// nil, or a nil result: none.
	Evidence func(pid int) *ExecEnv
	// Execd reports that pid is known to have exec'd (the tracer saw its
	// exec); nil or false: Execd decides from /proc.
	Execd func(pid int) bool
}

// MemberCheck is the verdict on one exec'd member of the launched tree
// that is not a worker. It is plain data, safe for concurrent use while no
// one changes it.
type MemberCheck struct {
	Pid  int    `json:"pid"`
	Comm string `json:"comm"`
	// Evidence is EvidenceExec, EvidenceLive or EvidenceUnreadable.
	Evidence string `json:"evidence"`
	// Diverged are the protected names it carries with another value than
	// the intended one (env-diverged); Missing those it lacks (a note).
	Diverged []string `json:"diverged,omitempty"`
	Missing  []string `json:"missing,omitempty"`
	// Unreadable are the protected names a live block the member wrote a
	// process title over no longer holds (the names it still holds are
	// judged); empty when its Evidence is EvidenceUnreadable (none).
	Unreadable []string `json:"unreadable,omitempty"`
}

// Execd reports whether pid of tree exec'd a program of its own rather
// than only forking from its parent (a helper: a DataLoader, a tokenizer
// pool, a pre-fork server's worker). A fork copies the parent's memory,
// so a fork-only child runs the parent's executable with its environment
// area at the parent's address; an exec lays out a new stack at a new
// (random) address. A process whose parent is not in tree (the root, a
// re-parented daemon), or whose area cannot be read, counts as exec'd.
func Execd(p proc.FS, pid int, tree []int) bool {
	s, err := p.Stat(pid)
	if err != nil || !slices.Contains(tree, s.PPid) {
		return true
	}
	ps, err := p.Stat(s.PPid)
	if err != nil {
		return true
	}
	exe, err1 := p.Exe(pid)
	pexe, err2 := p.Exe(s.PPid)
	if err1 == nil && err2 == nil && strings.TrimSuffix(exe, " (deleted)") != strings.TrimSuffix(pexe, " (deleted)") {
		return true
	}
	a, pa := ExecArea(s), ExecArea(ps)
	return a == "" || pa == "" || a != pa
}

// block is one process's environment as the tree judgement reads it.
type block struct {
	source string // EvidenceExec, EvidenceLive, EvidenceUnreadable
	vars   []proc.Var
	// digests: a recorded capture (names to digests).
	digests map[string]string
	// partial: vars are the entries of a block the process wrote a title
	// over that the title left intact (proc.Intact): a name not among
	// them cannot be read.
	partial bool
}

// digest returns n's digest in b and whether n is set; ok is false when b
// is unreadable.
func (b *block) digest(v *Verifier, n string) (d string, present, ok bool) {
	switch {
	case b.source == EvidenceUnreadable:
		return "", false, false
	case b.digests != nil && b.vars == nil:
		d, present = b.digests[n]
		return d, present, true
	}
	val, present := proc.Lookup(b.vars, n)
	if !present {
		return "", false, !b.partial
	}
	return v.State.Digest(n, val), true, true
}

// memberBlock reads pid's evidence: its exec-time capture while that
// still describes it, else its live environ while that is still the block
// its exec received, else unreadable.
func (v *Verifier) memberBlock(t TreeCheck, pid int) *block {
	if t.Evidence != nil {
		if ev := t.Evidence(pid); ev != nil {
			if ok, _ := ev.usable(v.Proc, pid); ok {
				return &block{source: EvidenceExec, vars: ev.Vars, digests: ev.Digests}
			}
		}
	}
	raw, err := v.Proc.EnvironRaw(pid)
	if err != nil || len(raw) == 0 {
		return &block{source: EvidenceUnreadable}
	}
	// Of a block the process wrote a title over, what the title left of
	// the block its exec received: the names in it are evidence, the
	// others cannot be read.
	le := v.Proc.ParseLive(pid, raw)
	return &block{source: EvidenceLive, vars: le.Vars, partial: le.Partial()}
}

// intended returns the names of c with a known intended digest that the
// tree is judged on (volatile names exempt), and those digests.
func (v *Verifier) intended(c Check) ([]string, map[string]string) {
	want := map[string]string{}
	var names []string
	for _, n := range c.Expect.names() {
		if c.Volatile != nil && c.Volatile(n) {
			continue
		}
		if d, ok := c.Expect.want(v.State, n); ok && d != "" {
			want[n] = d
		}
		names = append(names, n)
	}
	return names, want
}

// JudgeTree judges c's protected names in every exec'd member of t.Tree
// except the workers and the chains from the root down to them. Each
// member is judged by its own evidence (memberBlock), and the verdicts go
// to r.Members. A member carrying a name with another value than the
// intended one is env-diverged: the problem names the member, the name
// and the parent→child edge where the value changed. A member lacking a
// name, or one that cannot be read, is a note. Fork-only children (Execd
// false) are helpers and are not judged, since their block is their
// parent's.
func (v *Verifier) JudgeTree(r *Report, c Check, t TreeCheck) {
	names, want := v.intended(c)
	if len(names) == 0 {
		return
	}
	blocks := map[int]*block{}
	get := func(pid int) *block {
		b, ok := blocks[pid]
		if !ok {
			b = v.memberBlock(t, pid)
			blocks[pid] = b
		}
		return b
	}
	// The chain from the root down to each worker is exempt: those are
	// wrappers whose only part is what they pass on, which the worker's
	// own check proves (a dispatch script may hold another value and set
	// the intended one for the worker), and whose wrapper rules are
	// checked on their own.
	chain := map[int]bool{}
	// (A tree of workers only has no member to exempt: nothing is read.)
	others := slices.ContainsFunc(t.Tree, func(pid int) bool { return !slices.Contains(t.Workers, pid) })
	for _, w := range t.Workers {
		if !others {
			break
		}
		// Up from the worker while the parent is a member (Ancestors'
		// walk, read no further up than the first parent outside the
		// tree: the chain ends there).
		cur := w
		for range 4096 {
			s, err := v.Proc.Stat(cur)
			if err != nil || s.PPid <= 0 || !slices.Contains(t.Tree, s.PPid) {
				break
			}
			chain[s.PPid] = true
			if s.PPid == 1 {
				break
			}
			cur = s.PPid
		}
	}
	var unreadable, lacking []string
	for _, pid := range t.Tree {
		if slices.Contains(t.Workers, pid) || chain[pid] {
			continue
		}
		if !(t.Execd != nil && t.Execd(pid)) && !Execd(v.Proc, pid, t.Tree) {
			continue
		}
		st, err := v.Proc.Stat(pid)
		if err != nil || st.State == 'Z' {
			continue // gone
		}
		comm := st.Comm
		b := get(pid)
		mc := MemberCheck{Pid: pid, Comm: comm, Evidence: b.source}
		if b.partial {
			for _, n := range names {
				if _, _, ok := b.digest(v, n); !ok {
					mc.Unreadable = append(mc.Unreadable, n)
				}
			}
			if len(mc.Unreadable) == len(names) {
				mc.Evidence, mc.Unreadable = EvidenceUnreadable, nil
			}
		}
		if mc.Evidence == EvidenceUnreadable {
			unreadable = append(unreadable, fmt.Sprintf("pid %d (%s)", pid, comm))
		} else if len(mc.Unreadable) > 0 {
			unreadable = append(unreadable, fmt.Sprintf("pid %d (%s): %s", pid, comm, strings.Join(mc.Unreadable, ", ")))
		}
		for _, n := range names {
			d, present, ok := b.digest(v, n)
			switch {
			case !ok:
			case !present:
				mc.Missing = append(mc.Missing, n)
			case want[n] != "" && d != want[n]:
				mc.Diverged = append(mc.Diverged, n)
				r.AddAbout(KindEnvDiverged, Subject{Var: n, Pid: pid}, nil, "%s on pid %d (%s), a member of the launched tree, differs from the %s (digest %s, want %s): %s",
					n, pid, comm, c.Expect.what(n), ShortDigest(d), ShortDigest(want[n]), v.changedAt(t, get, n, d, pid))
			}
		}
		if len(mc.Missing) > 0 {
			lacking = append(lacking, fmt.Sprintf("pid %d (%s) lacks %s", pid, comm, strings.Join(mc.Missing, ", ")))
		}
		r.Members = append(r.Members, mc)
	}
	if len(unreadable) > 0 {
		r.Notes = append(r.Notes, fmt.Sprintf("%s of the launched tree cannot be judged: it rewrote its environment block and no exec-time evidence was captured", strings.Join(unreadable, ", ")))
	}
	if len(lacking) > 0 {
		r.Notes = append(r.Notes, "not every member carries the protected names (no failure: only a worker must): "+strings.Join(lacking, "; "))
	}
	r.Verified = len(r.Problems) == 0
	r.SetOutcome(r.Judged())
}

// changedAt names the parent→child edge where name n took the value of
// digest d that pid carries: the highest ancestor of pid in the tree that
// carries d, and its parent.
func (v *Verifier) changedAt(t TreeCheck, get func(int) *block, n, d string, pid int) string {
	child := pid
	for range 4096 {
		s, err := v.Proc.Stat(child)
		if err != nil || !slices.Contains(t.Tree, s.PPid) {
			return fmt.Sprintf("the launch root (pid %d) carries the same value: it came with an exec of the root", child)
		}
		pd, present, ok := get(s.PPid).digest(v, n)
		if !ok {
			return fmt.Sprintf("it changed between pid %d (%s, unreadable) and pid %d (%s)", s.PPid, v.commOf(s.PPid), child, v.commOf(child))
		}
		if !present || pd != d {
			return fmt.Sprintf("it changed from pid %d (%s) to pid %d (%s)", s.PPid, v.commOf(s.PPid), child, v.commOf(child))
		}
		child = s.PPid
	}
	return ""
}

func (v *Verifier) commOf(pid int) string {
	c, _ := v.Proc.Comm(pid)
	return c
}
