package envres

import (
	"bytes"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/childproof/childproof/envres/interp"
)

// maxFindings bounds the findings of one analysis.
const maxFindings = 10_000

type findKey struct {
	rule string
	Pos
}

// findings collects the rules' findings of one analysis and the
// suppression comments of the files it read. It is not safe for
// concurrent use: the rules run one after the other.
type findings struct {
	an  *interp.Analysis
	by  map[findKey]*Finding
	sup map[string]map[int][]string
}

// result runs the rules over an's facts and returns their findings that
// no comment suppresses, sorted.
func result(an *interp.Analysis) *Result {
	fs := &findings{an: an, by: map[findKey]*Finding{}, sup: map[string]map[int][]string{}}
	for _, name := range an.Files {
		fs.indexSuppressions(name, an.Sources[name])
	}
	runRules(fs)
	res := &Result{Findings: []Finding{}, Files: an.Files, Sources: an.Sources}
	if res.Files == nil {
		res.Files = []string{}
	}
	for _, f := range fs.by {
		if fs.suppressed(f) {
			continue
		}
		res.Findings = append(res.Findings, *f)
	}
	SortFindings(res.Findings)
	return res
}

var suppressRe = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`#\s*childproof\s+disable\s*=\s*([A-Za-z0-9_,\- ]+)`)
})

func (fs *findings) indexSuppressions(name string, src []byte) {
	if !bytes.Contains(src, []byte("childproof")) {
		return
	}
	m := map[int][]string{}
	for i, line := range bytes.Split(src, []byte{'\n'}) {
		if !bytes.Contains(line, []byte("childproof")) {
			continue
		}
		for _, sm := range suppressRe().FindAllSubmatch(line, -1) {
			for _, r := range strings.Split(string(sm[1]), ",") {
				if r = strings.TrimSpace(r); r != "" {
					if sp := strings.IndexByte(r, ' '); sp >= 0 {
						r = r[:sp]
					}
					m[i+1] = append(m[i+1], r)
				}
			}
		}
	}
	if len(m) > 0 {
		fs.sup[name] = m
	}
}

func (fs *findings) suppressed(f *Finding) bool {
	m := fs.sup[f.File]
	if m == nil {
		return false
	}
	for _, l := range []int{f.Line, f.Line - 1} {
		for _, r := range m[l] {
			if r == f.Rule || r == "all" {
				return true
			}
		}
	}
	return false
}

// report records rule r's finding d; findings of one rule at one place
// are merged (their variables, sources and reads joined; the first
// message stays).
func (fs *findings) report(r *Rule, d Diagnostic) {
	k := findKey{r.Name, d.At.Pos}
	f, ok := fs.by[k]
	if !ok {
		if len(fs.by) >= maxFindings {
			return
		}
		chain := append(append([]Pos(nil), d.At.Chain...), Pos{File: d.At.File, Line: d.At.Line})
		f = &Finding{Rule: r.Name, Severity: r.Severity, Pos: d.At.Pos, Message: fs.an.Mask(d.Message), Chain: chain, InString: d.At.InString}
		fs.by[k] = f
	}
	for _, v := range d.Variables {
		if !slices.Contains(f.Variables, v) {
			f.Variables = append(f.Variables, v)
		}
	}
	sort.Strings(f.Variables)
	for _, s := range d.Sources {
		if !slices.Contains(f.Sources, s) {
			f.Sources = append(f.Sources, s)
		}
	}
	for _, fr := range d.Reads {
		if fr.Path != "" && !slices.Contains(f.Reads, fr) {
			f.Reads = append(f.Reads, fr)
		}
	}
}
