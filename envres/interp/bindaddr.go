package interp

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"

	"github.com/childproof/childproof/envres/internal/expand"
)

// unknownMark stands for a part of a word that is not known statically in
// the text bindText returns: an address is read only where it is known.
const unknownMark = "\x00"

// bindText returns the text of a worker argument for the all-interfaces
// check, from the abstract state: the parts known statically as they are,
// any other part as unknownMark. With defaults, a variable the script
// leaves to its caller (never assigned on the way, not a protected name)
// takes the default of its expansion (${HOST:-0.0.0.0}, ${HOST-…},
// ${HOST:=…}): the address the worker binds unless its caller sets the
// variable. by names the variables whose defaults were taken. Nothing is
// assigned: the walk itself evaluates the word (eval.go).
func (a *analyzer) bindText(st *state, w *syntax.Word, defaults bool) (text string, by []string) {
	var b strings.Builder
	a.bindParts(st, w.Parts, &b, &by, defaults, false)
	return b.String(), by
}

func (a *analyzer) bindParts(st *state, parts []syntax.WordPart, b *strings.Builder, by *[]string, defaults, inDq bool) {
	for _, p := range parts {
		switch p := p.(type) {
		case *syntax.Lit:
			if inDq {
				b.WriteString(expand.UnescapeDq(p.Value))
			} else {
				b.WriteString(expand.UnescapeLit(p.Value))
			}
		case *syntax.SglQuoted:
			if p.Dollar {
				b.WriteString(expand.ANSIC(p.Value))
			} else {
				b.WriteString(p.Value)
			}
		case *syntax.DblQuoted:
			a.bindParts(st, p.Parts, b, by, defaults, true)
		case *syntax.ParamExp:
			a.bindParam(st, p, b, by, defaults)
		default:
			b.WriteString(unknownMark)
		}
		if b.Len() > expand.MaxValueLen {
			return
		}
	}
}

// bindParam writes the value of $X, ${X}, ${X:-d}, ${X-d}, ${X:=d} or
// ${X=d} as bindText reads it; any other expansion is unknownMark.
func (a *analyzer) bindParam(st *state, pe *syntax.ParamExp, b *strings.Builder, by *[]string, defaults bool) {
	if !expand.SelfDefault(pe) || !syntax.ValidName(pe.Param.Value) || pe.Exp != nil && (pe.Exp.Op == syntax.ErrorUnset || pe.Exp.Op == syntax.ErrorUnsetOrNull) {
		b.WriteString(unknownMark)
		return
	}
	name := pe.Param.Value
	vs, found := st.Get(name)
	orNull := pe.Exp != nil && (pe.Exp.Op == syntax.DefaultUnsetOrNull || pe.Exp.Op == syntax.AssignUnsetOrNull)
	switch {
	case found && vs.Val.Kind == expand.Literal && (vs.Val.Str != "" || !orNull):
		b.WriteString(vs.Val.Str)
	case found && (vs.Val.Kind == expand.Literal || vs.Val.Kind == expand.Unset):
		// Unset (or null, for the :- forms): the default.
		if pe.Exp != nil && pe.Exp.Word != nil {
			a.bindParts(st, pe.Exp.Word.Parts, b, by, defaults, false)
		}
	case found && vs.Val.Kind == expand.Orig:
		// A protected name: the launcher's value, compared only.
		if p := a.prot[vs.Val.Str]; p != nil && p.known && (p.value != "" || !orNull) {
			b.WriteString(p.value)
		} else {
			b.WriteString(unknownMark)
		}
	case defaults && pe.Exp != nil && (!found || vs.Val.Kind == expand.Unknown && len(vs.Origins) == 0 && vs.Exp == expand.Maybe):
		// Left to the caller: the default, unless the caller sets it.
		*by = append(*by, name)
		if pe.Exp.Word != nil {
			a.bindParts(st, pe.Exp.Word.Parts, b, by, defaults, false)
		}
	default:
		b.WriteString(unknownMark)
	}
}
