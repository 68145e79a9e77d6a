package expand

import (
	"errors"
	"strconv"

	"mvdan.cc/sh/v3/syntax"
)

// ScalarWord returns NAME and whether it is quoted when w is $NAME,
// ${NAME} or "$NAME" alone.
func ScalarWord(w *syntax.Word) (string, bool) {
	if w == nil || len(w.Parts) != 1 {
		return "", false
	}
	p, quoted := w.Parts[0], false
	if dq, ok := p.(*syntax.DblQuoted); ok && len(dq.Parts) == 1 {
		p, quoted = dq.Parts[0], true
	}
	pe, ok := p.(*syntax.ParamExp)
	if !ok || !simpleParam(pe) {
		return "", false
	}
	return pe.Param.Value, quoted
}

// AtWord reports whether w is "$@", $@, "${@}" or $*.
func AtWord(w *syntax.Word) bool {
	if len(w.Parts) != 1 {
		return false
	}
	p := w.Parts[0]
	if dq, ok := p.(*syntax.DblQuoted); ok && len(dq.Parts) == 1 {
		p = dq.Parts[0]
	}
	pe, ok := p.(*syntax.ParamExp)
	return ok && pe.Param != nil && (pe.Param.Value == "@" || pe.Param.Value == "*") && pe.Exp == nil && !pe.Length && pe.Index == nil && pe.Slice == nil && pe.Repl == nil
}

// SelfDefault reports whether pe is $X or ${X:-d} (and the -, :=, =, :?,
// ? forms): its value is X's own whenever X is set (and non-empty).
func SelfDefault(pe *syntax.ParamExp) bool {
	if pe.Param == nil || pe.Length || pe.Excl || pe.Index != nil || pe.Slice != nil || pe.Repl != nil || pe.NestedParam != nil {
		return false
	}
	if pe.Exp == nil {
		return true
	}
	switch pe.Exp.Op {
	case syntax.DefaultUnset, syntax.DefaultUnsetOrNull, syntax.AssignUnset, syntax.AssignUnsetOrNull, syntax.ErrorUnset, syntax.ErrorUnsetOrNull:
		return true
	}
	return false
}

func simpleParam(pe *syntax.ParamExp) bool {
	return pe.Param != nil && pe.Exp == nil && !pe.Length && !pe.Excl && pe.Index == nil && pe.Slice == nil && pe.Repl == nil && pe.NestedParam == nil
}

// IsDigits reports whether s is one or more ASCII digits.
func IsDigits(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

var errNotDigits = errors.New("not a number")

// atoiDigits is strconv.Atoi for names made of digits only ($1, ${10}),
// without building an error for every other variable name.
func atoiDigits(s string) (int, error) {
	if !IsDigits(s) {
		return 0, errNotDigits
	}
	return strconv.Atoi(s)
}
