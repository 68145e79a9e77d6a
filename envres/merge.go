package envres

import "fmt"

// Merge joins several lint results (a spec's launches) into one: files in
// the order first seen, findings without duplicates (same file, line,
// column, rule and message) sorted as SortFindings sorts, and the first
// source text of each file. Nil results are skipped; the result's
// Findings and Files are never nil.
func Merge(results ...*Result) *Result {
	out := &Result{Findings: []Finding{}, Files: []string{}}
	seenFile := map[string]bool{}
	seenFinding := map[string]bool{}
	for _, r := range results {
		if r == nil {
			continue
		}
		for _, f := range r.Files {
			if !seenFile[f] {
				seenFile[f] = true
				out.Files = append(out.Files, f)
			}
		}
		for k, v := range r.Sources {
			if out.Sources == nil {
				out.Sources = map[string][]byte{}
			}
			if _, ok := out.Sources[k]; !ok {
				out.Sources[k] = v
			}
		}
		for _, f := range r.Findings {
			key := fmt.Sprintf("%s\x00%d\x00%d\x00%s\x00%s", f.File, f.Line, f.Column, f.Rule, f.Message)
			if !seenFinding[key] {
				seenFinding[key] = true
				out.Findings = append(out.Findings, f)
			}
		}
	}
	SortFindings(out.Findings)
	return out
}

// Count returns how many findings of res are of severity error and of
// severity warning; zero for a nil res.
func (res *Result) Count() (errs, warns int) {
	if res == nil {
		return 0, 0
	}
	for _, f := range res.Findings {
		switch f.Severity {
		case SeverityError:
			errs++
		case SeverityWarning:
			warns++
		}
	}
	return errs, warns
}
