package interp

import (
	"sort"
	"strings"

	"github.com/childproof/childproof/envres/internal/expand"
	"github.com/childproof/childproof/redact"
)

// maxLoadedVals bounds how many env-file values one analysis keeps for
// masking.
const maxLoadedVals = 1024

// loadedVals are the values env-file loads assigned (of at least
// redact.MinLen bytes), by value: a path or message built from one shows
// ${NAME} in its place, never the value (contract §6: a diagnostic about
// a path built from a secret names its source).
type loadedVals struct {
	byValue map[string]string
	rep     *strings.Replacer
}

// note records a value a load assigned to name.
func (l *loadedVals) note(name string, v expand.Value) {
	if v.Kind != expand.Literal || len(v.Str) < redact.MinLen {
		return
	}
	if l.byValue == nil {
		l.byValue = map[string]string{}
	}
	if _, ok := l.byValue[v.Str]; ok || len(l.byValue) >= maxLoadedVals {
		return
	}
	l.byValue[v.Str] = name
	l.rep = nil
}

// mask replaces every recorded value in s by ${NAME}, the longest first.
func (l *loadedVals) mask(s string) string {
	if len(l.byValue) == 0 {
		return s
	}
	if l.rep == nil {
		vals := make([]string, 0, len(l.byValue))
		for v := range l.byValue {
			vals = append(vals, v)
		}
		sort.Slice(vals, func(i, j int) bool {
			if len(vals[i]) != len(vals[j]) {
				return len(vals[i]) > len(vals[j])
			}
			return vals[i] < vals[j]
		})
		pairs := make([]string, 0, 2*len(vals))
		for _, v := range vals {
			pairs = append(pairs, v, "${"+l.byValue[v]+"}")
		}
		l.rep = strings.NewReplacer(pairs...)
	}
	return l.rep.Replace(s)
}
