package expand

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"

	"github.com/childproof/childproof/envres/internal/shape"
)

// Host is what an Evaluator asks of the walk it serves. C is the walk's
// own context of the evaluation (its state and file), handed back unread.
type Host[C any] interface {
	// Fields returns an empty slice with room for n fields.
	Fields(n int) []Field
	// Override reports whether name is protected, and whether its
	// override is known to be empty.
	Override(name string) (protected, empty bool)
	// AssignDefault records ${X:=d}'s assignment of v to name.
	AssignDefault(c C, name string, v Value, known bool, pos syntax.Pos)
}

// Evaluator evaluates words against a scope. E is the type of the
// variables' origins, C the walk's context. It is not safe for concurrent
// use.
type Evaluator[E, C any] struct {
	Host  Host[C]
	Scope *Scope[E]
	Ctx   C
}

// Fields evaluates the words of a command, expanding "$@".
func (e *Evaluator[E, C]) Fields(words []*syntax.Word) []Field {
	out := e.Host.Fields(len(words))
	for _, w := range words {
		if at := AtWord(w); at {
			if len(out)+len(e.Scope.Args) > maxFields {
				// set -- "$@" "$@" doubles them: past the bound, the
				// rest is unknown words.
				out = append(out, Field{Splat: true, Val: UnknownValue, Pos: w.Pos(), Word: w})
				continue
			}
			for _, f := range e.Scope.Args {
				f.Pos = w.Pos()
				f.Word = w
				out = append(out, f)
			}
			continue
		}
		if name := shape.ArrayParam(w); name != "" {
			if vs, ok := e.Scope.Get(name); ok && vs.Words().IsArr {
				// "${CMD[@]}" of an array of literal words: its words.
				for _, el := range vs.Words().Arr {
					out = append(out, LitField(el, w.Pos()))
				}
				continue
			} else if ok && len(vs.Words().Head) > 0 {
				// Known in part: its leading words, then words not
				// known statically.
				for _, el := range vs.Words().Head {
					out = append(out, LitField(el, w.Pos()))
				}
				out = append(out, Field{Splat: true, Val: UnknownValue, Pos: w.Pos(), Word: w})
				continue
			}
		}
		f := e.Word(w)
		if name, quoted := ScalarWord(w); name != "" && !quoted && f.Known && strings.ContainsAny(f.Str, " \t\n") {
			// $SUDO holding "sudo -u app": split on IFS's default.
			for _, s := range strings.Fields(f.Str) {
				out = append(out, LitField(s, w.Pos()))
			}
			continue
		}
		out = append(out, f)
	}
	return out
}

// Word evaluates one word.
func (e *Evaluator[E, C]) Word(w *syntax.Word) Field {
	f := Field{Known: true, Pos: w.Pos(), Word: w}
	var b WordBuf
	e.Parts(w.Parts, &b, &f, false)
	f.Str = b.String()
	if len(f.Str) > MaxValueLen {
		// Values built by doubling would blow up memory: forget them.
		f.Str, f.Known = f.Str[:MaxValueLen], false
	}
	if f.Known {
		f.Val = Lit(f.Str)
	} else {
		f.Val = UnknownValue
	}
	// A word that is exactly one expansion of a variable carries its value.
	if len(w.Parts) == 1 {
		p := w.Parts[0]
		if dq, ok := p.(*syntax.DblQuoted); ok && len(dq.Parts) == 1 {
			p = dq.Parts[0]
		}
		if pe, ok := p.(*syntax.ParamExp); ok && (simpleParam(pe) || e.keepsOwnValue(pe)) {
			if vs, ok := e.Scope.Get(pe.Param.Value); ok && vs.Val.Kind == Orig {
				f.Val = vs.Val
			}
		}
		if pe, ok := p.(*syntax.ParamExp); ok && SelfDefault(pe) {
			f.Self = pe.Param.Value
		}
	}
	return f
}

// keepsOwnValue reports whether ${X:-d}, ${X:=d} or ${X:?m} yields X's own
// value: X is a protected variable the launcher sets to a non-empty value.
func (e *Evaluator[E, C]) keepsOwnValue(pe *syntax.ParamExp) bool {
	if pe.Param == nil || pe.Exp == nil || pe.Length || pe.Excl || pe.Index != nil || pe.Slice != nil || pe.Repl != nil || pe.NestedParam != nil {
		return false
	}
	switch pe.Exp.Op {
	case syntax.DefaultUnset, syntax.DefaultUnsetOrNull, syntax.AssignUnset, syntax.AssignUnsetOrNull, syntax.ErrorUnset, syntax.ErrorUnsetOrNull:
	default:
		return false
	}
	vs, ok := e.Scope.Get(pe.Param.Value)
	if !ok || vs.Val.Kind != Orig {
		return false
	}
	prot, empty := e.Host.Override(vs.Val.Str)
	return prot && !empty
}

// Parts evaluates the parts of a word into b, marking f unknown where
// one is; inDq is set inside double quotes.
func (e *Evaluator[E, C]) Parts(parts []syntax.WordPart, b *WordBuf, f *Field, inDq bool) {
	for _, p := range parts {
		switch p := p.(type) {
		case *syntax.Lit:
			v := p.Value
			if !inDq {
				v = UnescapeLit(v)
				if strings.HasPrefix(v, "~") && b.Len() == 0 {
					f.Known = false
				}
			} else {
				v = UnescapeDq(v)
			}
			b.WriteString(v)
		case *syntax.SglQuoted:
			f.Quoted = true
			if p.Dollar {
				b.WriteString(ANSIC(p.Value))
			} else {
				b.WriteString(p.Value)
			}
		case *syntax.DblQuoted:
			f.Quoted = true
			e.Parts(p.Parts, b, f, true)
		case *syntax.ParamExp:
			s, ok := e.param(p, f)
			if !ok {
				f.Known = false
			}
			b.WriteString(s)
		case *syntax.CmdSubst:
			f.SubWord = f.Word
			s, ok := e.substEval(p.Stmts)
			if !ok {
				f.Known = false
			}
			b.WriteString(s)
		case *syntax.ProcSubst:
			f.SubWord = f.Word
			f.Known = false
		default:
			f.Known = false
		}
	}
}
