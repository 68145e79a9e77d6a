package interp

import (
	"mvdan.cc/sh/v3/syntax"

	"github.com/childproof/childproof/envres/internal/expand"
)

// bindText returns the text of a worker argument for the all-interfaces
// check (expand.BindText).
func (a *analyzer) bindText(st *state, w *syntax.Word, defaults bool) (text string, by []string) {
	return expand.BindText(&st.Scope, a, w, defaults)
}

// OverrideValue returns name's override, when it is protected and its
// value is known (expand.Overrides).
func (a *analyzer) OverrideValue(name string) (string, bool) {
	if p := a.prot[name]; p != nil && p.known {
		return p.value, true
	}
	return "", false
}
