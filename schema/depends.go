package schema

import (
	"fmt"
	"slices"
	"strings"

	"github.com/childproof/childproof/spec"
	"github.com/hashicorp/hcl/v2"
)

// dependencies checks every launch's depends_on against the file: each
// name must be another launch of the file, and the graph must have no
// cycle. A problem is reported at the depends_on element that causes it.
func (l *loader) dependencies(f *File, declared map[string]hcl.Range) {
	byName := map[string]*Launch{}
	for _, la := range f.Launches {
		byName[la.Name] = la
	}
	elem := func(la *Launch, i int) *hcl.Range {
		if r, ok := la.Ranges.Parts[ns("depends_on", i)]; ok {
			return rangePtr(HCLRange(r))
		}
		return rangePtr(HCLRange(la.Ranges.Block))
	}
	bad := map[string]bool{}
	for _, la := range f.Launches {
		seen := map[string]bool{}
		for i, d := range la.DependsOn {
			switch {
			case d == la.Name:
				l.errorf(elem(la, i), "Launch depends on itself", "launch %q names itself in depends_on", la.Name)
				bad[la.Name] = true
			case seen[d]:
				l.errorf(elem(la, i), "Duplicate dependency", "launch %q names %q twice in depends_on", la.Name, d)
			case declared[d] == (hcl.Range{}):
				names := slices.Sorted(func(yield func(string) bool) {
					for n := range declared {
						if n != la.Name && !yield(n) {
							return
						}
					}
				})
				detail := fmt.Sprintf("depends_on names %q, which is not a launch of this file", d)
				if s := closest(d, names); s != "" {
					detail += fmt.Sprintf("; did you mean %q?", s)
				} else if len(names) > 0 {
					detail += "; the other launches are " + strings.Join(quoteAll(names), ", ")
				}
				l.errorf(elem(la, i), "Unknown launch in depends_on", "%s", detail)
				bad[la.Name] = true
			}
			seen[d] = true
		}
	}
	// Cycles: a depth-first walk; the edge that closes a cycle is reported.
	const (
		white = iota
		grey
		black
	)
	color := map[string]int{}
	var path []string
	var visit func(la *Launch)
	visit = func(la *Launch) {
		color[la.Name] = grey
		path = append(path, la.Name)
		for i, d := range la.DependsOn {
			next := byName[d]
			if next == nil || d == la.Name {
				continue
			}
			switch color[d] {
			case grey:
				start := slices.Index(path, d)
				cycle := append(slices.Clone(path[start:]), d)
				l.errorf(elem(la, i), "Dependency cycle", "depends_on makes a cycle: %s; up could start none of them first", strings.Join(cycle, " → "))
			case white:
				visit(next)
			}
		}
		path = path[:len(path)-1]
		color[la.Name] = black
	}
	for _, la := range f.Launches {
		if color[la.Name] == white {
			visit(la)
		}
	}
}

func quoteAll(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = fmt.Sprintf("%q", s)
	}
	return out
}

// closest returns the candidate within edit distance 2 of s, if any.
func closest(s string, cands []string) string {
	best, bestD := "", 3
	for _, c := range cands {
		if d := EditDistance(s, c); d < bestD {
			best, bestD = c, d
		}
	}
	return best
}

// EditDistance is the Levenshtein distance of a and b, in bytes: the
// spec's and the command line's "did you mean" suggestions use it.
func EditDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// StartOrder returns the named launches (every launch when names is empty)
// and, transitively, the launches they depend on, each after its
// dependencies; otherwise in file order. The file must be valid (no
// unknown name, no cycle).
func (f *File) StartOrder(names ...string) ([]*Launch, error) {
	out, err := spec.StartOrder(f.Launches, names...)
	if e, ok := err.(*LaunchNameError); ok {
		e.Path = f.Path
	}
	return out, err
}

// StopOrder returns the named launches (every launch when names is empty)
// and, transitively, the launches that depend on them, each before its
// dependencies: the reverse of a start order.
func (f *File) StopOrder(names ...string) ([]*Launch, error) {
	if len(names) == 0 {
		out, err := f.StartOrder()
		slices.Reverse(out)
		return out, err
	}
	all, err := f.StartOrder()
	if err != nil {
		return nil, err
	}
	for _, n := range names {
		if _, err := f.Launch(n); err != nil {
			return nil, err
		}
	}
	stop := map[string]bool{}
	for _, n := range names {
		stop[n] = true
	}
	// In start order, a launch is stopped when one of its dependencies is.
	for _, la := range all {
		for _, d := range la.DependsOn {
			if stop[d] {
				stop[la.Name] = true
			}
		}
	}
	var out []*Launch
	for i := len(all) - 1; i >= 0; i-- {
		if stop[all[i].Name] {
			out = append(out, all[i])
		}
	}
	return out, nil
}
