package verify

// FirstDiffer answers the crash-fix question for the i-th name of an
// Explain: which process, from the launch root down to the worker, is the
// first whose environ does not hold the intended value? intended is that
// value's keyed digest. Ancestors above the root and other descendants
// are not on the path and are skipped, and so are processes whose environ
// is unreadable. It returns false when every readable process on the path
// has the intended value.
func FirstDiffer(rows []ExplainRow, i int, intended string) (ExplainRow, bool) {
	for _, r := range rows {
		switch r.Role {
		case RoleRoot, RoleChain, RoleWorker:
		default:
			continue
		}
		if i < 0 || i >= len(r.Vars) || r.Vars[i].State == VarUnreadable {
			continue
		}
		if r.Vars[i].Digest != intended || r.Vars[i].State == VarUnset {
			return r, true
		}
	}
	return ExplainRow{}, false
}

// WorkerUnreadable reports whether the i-th name of an Explain cannot be
// judged on the worker: its row is unreadable (it rewrote its environment
// block and no exec-time evidence holds), which verify reports as
// env-unreadable. FirstDiffer skips such a row; an answer must not.
func WorkerUnreadable(rows []ExplainRow, i int) bool {
	for _, r := range rows {
		if r.Role == RoleWorker && i >= 0 && i < len(r.Vars) {
			return r.Vars[i].State == VarUnreadable
		}
	}
	return false
}

// Judgement is what an Explain says about one name, against the value
// the launch intends for it. It is plain data, safe for concurrent use
// while no one changes it.
type Judgement struct {
	Name string
	// Intended is the keyed digest of the value intended for Name; "":
	// none is known, and nothing is judged but Unreadable.
	Intended string
	// FirstDiffers is the first process from the root down to the worker
	// whose environ does not hold Intended (FirstDiffer); nil: none does,
	// or nothing is intended.
	FirstDiffers *ExplainRow
	// Unreadable: the worker's row cannot judge Name (WorkerUnreadable).
	Unreadable bool
	// WorkerDiffers: a value is intended, the worker's row is readable,
	// and it does not hold that value.
	WorkerDiffers bool
	// Diverged are the exec'd members below the root, off the path to the
	// worker, whose readable row holds Name with another value than
	// Intended (verify's env-diverged).
	Diverged []ExplainRow
	// UnreadableRows are the rows from the root down (helpers aside) that
	// cannot show Name: the answer never says "every process" then.
	UnreadableRows []ExplainRow
}

// Explanation is an Explain (Rows, one ExplainVar per name in Names'
// order) with a Judgement of each name, in the same order. Its methods only
// read it: an Explanation is safe for concurrent use while no one changes
// it.
type Explanation struct {
	Names      []string
	Rows       []ExplainRow
	Judgements []Judgement
	// ArgvNote says how the rows' argv were masked when no record names
	// their launch (what looked like a secret: redact.LooksSecret); ""
	// when nothing was masked so.
	ArgvNote string
}

// Intended returns the intended digests of the names that have one.
func (x *Explanation) Intended() map[string]string {
	out := map[string]string{}
	for _, j := range x.Judgements {
		if j.Intended != "" {
			out[j.Name] = j.Intended
		}
	}
	return out
}

// Judge judges each name of an Explain's rows against its intended keyed
// digest in intended; a name not in it has no intended value. names are
// in the rows' order. A judgement says where the path from the root to the
// worker first differs, and whether the worker can be judged and holds
// the value.
func Judge(rows []ExplainRow, names []string, intended map[string]string) []Judgement {
	out := make([]Judgement, len(names))
	for i, n := range names {
		j := Judgement{Name: n, Intended: intended[n], Unreadable: WorkerUnreadable(rows, i)}
		if j.Intended != "" {
			if r, found := FirstDiffer(rows, i, j.Intended); found {
				j.FirstDiffers = &r
			}
			for _, r := range rows {
				if r.Role == RoleWorker && i < len(r.Vars) && r.Vars[i].State != VarUnreadable && r.Vars[i].Digest != j.Intended {
					j.WorkerDiffers = true
				}
				if r.Role == RoleDescendant && !r.Helper && i < len(r.Vars) && r.Vars[i].State != VarUnreadable && r.Vars[i].State != VarUnset && r.Vars[i].Digest != j.Intended {
					j.Diverged = append(j.Diverged, r)
				}
			}
		}
		for _, r := range rows {
			if r.Role != RoleAncestor && r.Role != RoleWorker && !r.Helper && i < len(r.Vars) && r.Vars[i].State == VarUnreadable {
				j.UnreadableRows = append(j.UnreadableRows, r)
			}
		}
		out[i] = j
	}
	return out
}
