package verify

// FirstDiffer answers the crash-fix question for the i-th name of an
// Explain: which process, from the launch root down to the worker, is the
// first whose environ does not hold the intended value (given as a keyed
// digest)? Ancestors above the root and other descendants are not on the
// path and are skipped; so are processes whose environ is unreadable. It
// returns false when every readable process on the path has the intended
// value.
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
