package expand

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// UnknownMark stands for a part of a word that is not known statically in
// the text BindText returns: an address is read only where it is known.
const UnknownMark = "\x00"

// BindText returns the text of a worker argument for the all-interfaces
// check, from the variables of sc: the parts known statically as they
// are, any other part as UnknownMark. With defaults, a variable the
// script leaves to its caller (never assigned on the way, not a protected
// name) takes the default of its expansion (${HOST:-0.0.0.0}, ${HOST-…},
// ${HOST:=…}): the address the worker binds unless its caller sets the
// variable. by names the variables whose defaults were taken. Nothing is
// assigned: the walk itself evaluates the word.
func BindText[E any](sc *Scope[E], ov Overrides, w *syntax.Word, defaults bool) (text string, by []string) {
	var b strings.Builder
	bindParts(sc, ov, w.Parts, &b, &by, defaults, false)
	return b.String(), by
}

// Overrides are the protected names' overrides BindText compares with.
type Overrides interface {
	// OverrideValue returns name's override, when it is protected and its
	// value is known (compared only, never shown).
	OverrideValue(name string) (string, bool)
}

func bindParts[E any](sc *Scope[E], ov Overrides, parts []syntax.WordPart, b *strings.Builder, by *[]string, defaults, inDq bool) {
	for _, p := range parts {
		switch p := p.(type) {
		case *syntax.Lit:
			if inDq {
				b.WriteString(UnescapeDq(p.Value))
			} else {
				b.WriteString(UnescapeLit(p.Value))
			}
		case *syntax.SglQuoted:
			if p.Dollar {
				b.WriteString(ANSIC(p.Value))
			} else {
				b.WriteString(p.Value)
			}
		case *syntax.DblQuoted:
			bindParts(sc, ov, p.Parts, b, by, defaults, true)
		case *syntax.ParamExp:
			bindParam(sc, ov, p, b, by, defaults)
		default:
			b.WriteString(UnknownMark)
		}
		if b.Len() > MaxValueLen {
			return
		}
	}
}

// bindParam writes the value of $X, ${X}, ${X:-d}, ${X-d}, ${X:=d} or
// ${X=d} as BindText reads it; any other expansion is UnknownMark.
func bindParam[E any](sc *Scope[E], ov Overrides, pe *syntax.ParamExp, b *strings.Builder, by *[]string, defaults bool) {
	if !SelfDefault(pe) || !syntax.ValidName(pe.Param.Value) || pe.Exp != nil && (pe.Exp.Op == syntax.ErrorUnset || pe.Exp.Op == syntax.ErrorUnsetOrNull) {
		b.WriteString(UnknownMark)
		return
	}
	name := pe.Param.Value
	vs, found := sc.Get(name)
	orNull := pe.Exp != nil && (pe.Exp.Op == syntax.DefaultUnsetOrNull || pe.Exp.Op == syntax.AssignUnsetOrNull)
	switch {
	case found && vs.Val.Kind == Literal && (vs.Val.Str != "" || !orNull):
		b.WriteString(vs.Val.Str)
	case found && (vs.Val.Kind == Literal || vs.Val.Kind == Unset):
		// Unset (or null, for the :- forms): the default.
		if pe.Exp != nil && pe.Exp.Word != nil {
			bindParts(sc, ov, pe.Exp.Word.Parts, b, by, defaults, false)
		}
	case found && vs.Val.Kind == Orig:
		// A protected name: the launcher's value, compared only.
		if v, known := ov.OverrideValue(vs.Val.Str); known && (v != "" || !orNull) {
			b.WriteString(v)
		} else {
			b.WriteString(UnknownMark)
		}
	case defaults && pe.Exp != nil && (!found || vs.Val.Kind == Unknown && len(vs.Origins) == 0 && vs.Exp == Maybe):
		// Left to the caller: the default, unless the caller sets it.
		*by = append(*by, name)
		if pe.Exp.Word != nil {
			bindParts(sc, ov, pe.Exp.Word.Parts, b, by, defaults, false)
		}
	default:
		b.WriteString(UnknownMark)
	}
}
