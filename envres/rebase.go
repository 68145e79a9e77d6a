package envres

import "github.com/childproof/childproof/envres/script"

// RebasePath names p, a path relative to dir (or absolute; dir "" leaves
// a relative p as it is), for a user in the directory wd: relative to wd
// when it lies below it, else absolute. "" and CommandFile stay, and so
// does every path when wd is "" (not known).
func RebasePath(p, dir, wd string) string { return script.RebasePath(p, dir, wd) }

// Rebase returns a copy of res whose paths (findings, their chains, Files
// and the keys of Sources), relative to dir as LintLaunch reports them,
// name the files for a user in wd (RebasePath): relative to wd below it,
// else absolute. CommandFile stays. A nil res, or dir "", is returned as
// it is.
func (res *Result) Rebase(dir, wd string) *Result {
	if res == nil || dir == "" {
		return res
	}
	fix := func(p string) string { return RebasePath(p, dir, wd) }
	out := &Result{Findings: make([]Finding, len(res.Findings)), Files: make([]string, len(res.Files))}
	for i, f := range res.Files {
		out.Files[i] = fix(f)
	}
	for i, f := range res.Findings {
		f.File = fix(f.File)
		if f.Chain != nil {
			chain := make([]Pos, len(f.Chain))
			for j, c := range f.Chain {
				chain[j] = Pos{File: fix(c.File), Line: c.Line}
			}
			f.Chain = chain
		}
		out.Findings[i] = f
	}
	if res.Sources != nil {
		out.Sources = make(map[string][]byte, len(res.Sources))
		for k, v := range res.Sources {
			out.Sources[fix(k)] = v
		}
	}
	return out
}
