package interp

import (
	"github.com/childproof/childproof/envres/internal/expand"
	"github.com/childproof/childproof/envres/internal/shape"
)

// fillMode says which names a fill-only load assigns (shape.Fill).
type fillMode = shape.Fill

const (
	fillNone         = shape.FillNone         // every name is assigned
	fillUnsetOrEmpty = shape.FillUnsetOrEmpty // [ -z "${!k}" ] && export …, : "${X:=v}"
	fillUnset        = shape.FillUnset        // [ -z "${!k+x}" ], [[ -v $k ]] || export …
)

// fillKeeps reports whether a fill-only load leaves a variable whose
// current state is old untouched: it certainly has a value (non-empty, or
// set for fillUnset). An override whose value is not given is taken to be
// non-empty, as for ${X:=v}.
func (a *analyzer) fillKeeps(old varState, mode fillMode) bool {
	switch old.Val.Kind {
	case expand.Orig:
		if p := a.prot[old.Val.Str]; p != nil && p.known && p.value == "" {
			return mode == fillUnset
		}
		return true
	case expand.Literal:
		return old.Val.Str != "" || mode == fillUnset
	}
	return false
}
