package expand

import (
	"strconv"
	"strings"

	shexpand "mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/pattern"
	"mvdan.cc/sh/v3/syntax"
)

// param evaluates a parameter expansion: paramValue reads the parameter,
// then one step per operator family (defaultOp for ${x-d} ${x:-d} ${x=d}
// ${x:=d} ${x?m} ${x:?m}, alternateOp for ${x+a} ${x:+a}, trimOp for
// ${x%p} ${x%%p} ${x#p} ${x##p}) applies the operator. Any other form is
// unknown.
func (e *Evaluator[E, C]) param(pe *syntax.ParamExp, f *Field) (string, bool) {
	if pe.Param != nil && !pe.Excl && pe.NestedParam == nil && pe.Names == 0 && pe.Index == nil && (pe.Length || pe.Slice != nil || pe.Repl != nil || isCaseOp(pe.Exp)) {
		return e.shellParam(pe, f)
	}
	if pe.Param == nil || pe.Excl || pe.Length || pe.NestedParam != nil || pe.Slice != nil || pe.Repl != nil || pe.Names != 0 {
		return "", false
	}
	if pe.Index != nil && pe.Param.Value != "BASH_SOURCE" {
		return "", false
	}
	cur, ok := e.paramValue(pe, f)
	if !ok {
		return "", false
	}
	if pe.Exp == nil {
		return cur.s, cur.known
	}
	switch pe.Exp.Op {
	case syntax.DefaultUnset, syntax.DefaultUnsetOrNull, syntax.AssignUnset, syntax.AssignUnsetOrNull, syntax.ErrorUnset, syntax.ErrorUnsetOrNull:
		return e.defaultOp(pe, f, cur)
	case syntax.AlternateUnset, syntax.AlternateUnsetOrNull:
		return e.alternateOp(pe, f, cur)
	case syntax.RemSmallSuffix, syntax.RemLargeSuffix, syntax.RemSmallPrefix, syntax.RemLargePrefix:
		return e.trimOp(pe, f, cur)
	}
	return "", false
}

// isCaseOp reports whether exp is one of ${x^p} ${x^^p} ${x,p} ${x,,p}.
func isCaseOp(exp *syntax.Expansion) bool {
	if exp == nil {
		return false
	}
	switch exp.Op {
	case syntax.UpperFirst, syntax.UpperAll, syntax.LowerFirst, syntax.LowerAll:
		return true
	}
	return false
}

// shellParam evaluates ${#x}, ${x:o:l}, ${x/p/r} (and //, /#, /%) and the
// case operators with mvdan.cc/sh/v3/expand, the shell's own semantics,
// when the variable's value is known and the operator's words are plain
// literals. The other operators stay with the evaluator because expand
// needs every value: the analysis carries unknown values, "the caller's
// value" and where each came from, which expand has no place for.
func (e *Evaluator[E, C]) shellParam(pe *syntax.ParamExp, f *Field) (string, bool) {
	name := pe.Param.Value
	if !syntax.ValidName(name) || !literalParts(pe) {
		return "", false
	}
	if pe.Repl != nil && pe.Repl.Orig != nil {
		// expand (v3.14) reads ${x/#p/r} and ${x/%p/r} as a pattern
		// starting with a literal # or %, not as anchored: unknown.
		if o := pe.Repl.Orig.Lit(); strings.HasPrefix(o, "#") || strings.HasPrefix(o, "%") {
			return "", false
		}
	}
	cur, ok := e.paramValue(pe, f)
	if !ok || !cur.known || len(cur.s) > 1024 {
		return "", false
	}
	env := shexpand.ListEnviron()
	if cur.set {
		env = shexpand.ListEnviron(name + "=" + cur.s)
	}
	cp := *pe
	cp.Dollar = syntax.Pos{}
	out, err := shexpand.Literal(&shexpand.Config{Env: env}, &syntax.Word{Parts: []syntax.WordPart{&cp}})
	if err != nil {
		return "", false
	}
	return out, true
}

// literalParts reports whether the words of pe's operator (offset and
// length, pattern and replacement, case pattern) hold no expansion, so
// that expand reads nothing the analysis tracks.
func literalParts(pe *syntax.ParamExp) bool {
	ok := true
	check := func(n syntax.Node) {
		if n == nil || !ok {
			return
		}
		syntax.Walk(n, func(n syntax.Node) bool {
			switch n.(type) {
			case *syntax.ParamExp, *syntax.CmdSubst, *syntax.ArithmExp, *syntax.ProcSubst, *syntax.ExtGlob:
				ok = false
			}
			return ok
		})
	}
	// literalArithm refuses every expansion too: a word in it must be digits.
	if pe.Slice != nil && (!literalArithm(pe.Slice.Offset) || !literalArithm(pe.Slice.Length)) {
		return false
	}
	if pe.Repl != nil {
		if pe.Repl.Orig != nil {
			check(pe.Repl.Orig)
		}
		if pe.Repl.With != nil {
			check(pe.Repl.With)
		}
	}
	if pe.Exp != nil && pe.Exp.Word != nil {
		check(pe.Exp.Word)
	}
	return ok
}

// literalArithm reports whether an arithmetic expression is nil or built
// of numbers alone: a bare name in ${x:o:l} is a variable.
func literalArithm(x syntax.ArithmExpr) bool {
	if x == nil {
		return true
	}
	ok := true
	syntax.Walk(x, func(n syntax.Node) bool {
		if w, isWord := n.(*syntax.Word); isWord {
			if lit := w.Lit(); lit == "" || strings.TrimLeft(lit, "0123456789") != "" {
				ok = false
			}
		}
		return ok
	})
	return ok
}

// paramCur is a parameter's value before its operator applies: the text,
// whether the parameter is set, and whether both are known.
type paramCur struct {
	s          string
	set, known bool
}

// paramValue reads the parameter of pe: $0, ${BASH_SOURCE} (or
// ${BASH_SOURCE[0]}), $PWD, $@ and $*, $#, the positional parameters and
// variables. It records f.pid for $! and for variables holding a
// background pid. ok is false for $! and the parameters never known
// ($?, $$, $-, RANDOM, LINENO, SECONDS), for another BASH_SOURCE index
// and for a positional parameter after an unknown one.
func (e *Evaluator[E, C]) paramValue(pe *syntax.ParamExp, f *Field) (c paramCur, ok bool) {
	name := pe.Param.Value
	switch name {
	case "!":
		f.Pid = true
		return c, false
	case "0":
		return paramCur{e.Scope.Dollar0, true, e.Scope.Dollar0 != ""}, true
	case "BASH_SOURCE":
		if pe.Index != nil {
			if w, ok := pe.Index.(*syntax.Word); !ok || w.Lit() != "0" {
				return c, false
			}
		}
		return paramCur{e.Scope.Source, true, e.Scope.Source != ""}, true
	case "PWD":
		return paramCur{e.Scope.Cwd, true, e.Scope.Cwd != ""}, true
	case "@", "*":
		var parts []string
		c.known = true
		for _, a := range e.Scope.Args {
			parts = append(parts, a.Str)
			c.known = c.known && a.Known
		}
		c.s, c.set = strings.Join(parts, " "), true
		return c, true
	case "#":
		return paramCur{strconv.Itoa(len(e.Scope.Args)), true, ArgsKnown(e.Scope.Args)}, true
	case "?", "$", "-", "RANDOM", "LINENO", "SECONDS":
		return c, false
	}
	if n, err := atoiDigits(name); err == nil {
		if !ArgsKnown(e.Scope.Args[:min(n, len(e.Scope.Args))]) {
			return c, false
		}
		if n-1 < len(e.Scope.Args) {
			a := e.Scope.Args[n-1]
			return paramCur{a.Str, true, a.Known}, true
		}
		return paramCur{"", false, true}, true
	}
	if e.Scope.PidVars[name] {
		f.Pid = true
	}
	vs, found := e.Scope.Get(name)
	if !found {
		vs = DefaultVar[E]()
	}
	switch vs.Val.Kind {
	case Literal:
		return paramCur{vs.Val.Str, true, true}, true
	case Unset:
		return paramCur{"", false, true}, true
	}
	return c, true
}

// paramArg evaluates the word after a parameter expansion's operator ("" and
// known when there is none), recording f.pid when it holds a background pid.
func (e *Evaluator[E, C]) paramArg(pe *syntax.ParamExp, f *Field) (string, bool) {
	if pe.Exp.Word == nil {
		return "", true
	}
	af := e.Word(pe.Exp.Word)
	if af.Pid {
		f.Pid = true
	}
	return af.Str, af.Known
}

// defaultOp applies ${x-d}, ${x:-d}, ${x=d}, ${x:=d}, ${x?m} and ${x:?m}
// to cur. The assigning forms record the default as the variable's value
// (assignDefault): the word when the variable is known to be unset (or
// null), also when it is a protected name given an empty override, and an
// unknown value when it is not known whether the variable is set. A
// protected name not known to be empty is set by the launcher: its value is
// unknown.
func (e *Evaluator[E, C]) defaultOp(pe *syntax.ParamExp, f *Field, cur paramCur) (string, bool) {
	op, name := pe.Exp.Op, pe.Param.Value
	empty := !cur.set || (cur.s == "" && (op == syntax.DefaultUnsetOrNull || op == syntax.AssignUnsetOrNull || op == syntax.ErrorUnsetOrNull))
	if cur.known && !empty {
		return cur.s, true
	}
	if op == syntax.ErrorUnset || op == syntax.ErrorUnsetOrNull {
		return cur.s, cur.known
	}
	d, dk := e.paramArg(pe, f)
	assign := op == syntax.AssignUnset || op == syntax.AssignUnsetOrNull
	if cur.known && empty {
		if assign && syntax.ValidName(name) {
			e.Host.AssignDefault(e.Ctx, name, Value{Kind: Literal, Str: d}, dk, pe.Pos())
		}
		return d, dk
	}
	// Not known whether set: a protected name is set by the launcher.
	if vs, ok := e.Scope.Get(name); ok && vs.Val.Kind == Orig {
		prot, empty := e.Host.Override(vs.Val.Str)
		if prot && !empty {
			return cur.s, false
		}
		if prot && assign && syntax.ValidName(name) {
			// An empty override is replaced.
			e.Host.AssignDefault(e.Ctx, name, Value{Kind: Literal, Str: d}, dk, pe.Pos())
			return d, dk
		}
	}
	if assign && syntax.ValidName(name) {
		e.Host.AssignDefault(e.Ctx, name, UnknownValue, false, pe.Pos())
	}
	return "", false
}

// alternateOp applies ${x+a} and ${x:+a} to cur: the word when the
// variable is set (and not null), "" when it is not, unknown when cur is.
func (e *Evaluator[E, C]) alternateOp(pe *syntax.ParamExp, f *Field, cur paramCur) (string, bool) {
	if !cur.known {
		return "", false
	}
	if !cur.set || (cur.s == "" && pe.Exp.Op == syntax.AlternateUnsetOrNull) {
		return "", true
	}
	return e.paramArg(pe, f)
}

// trimOp applies ${x%p}, ${x%%p}, ${x#p} and ${x##p} to cur (trimPattern);
// unknown when the value or the pattern is, or either is too long to match
// cheaply.
func (e *Evaluator[E, C]) trimOp(pe *syntax.ParamExp, f *Field, cur paramCur) (string, bool) {
	pat, pk := e.PatternWord(pe.Exp.Word, f)
	if !cur.known || !pk || len(cur.s) > 1024 || len(pat) > 256 {
		return "", false
	}
	return trimPattern(cur.s, pat, pe.Exp.Op)
}

// PatternWord evaluates a word that is a pattern (an operator's, a case
// item's): quoted parts match themselves (pattern.QuoteMeta), a literal
// keeps its backslash escapes, an unquoted expansion's value is a pattern,
// as bash reads them. f, when not nil, is marked when $! was read.
func (e *Evaluator[E, C]) PatternWord(w *syntax.Word, f *Field) (string, bool) {
	if w == nil {
		return "", true
	}
	var b strings.Builder
	for _, p := range w.Parts {
		if l, ok := p.(*syntax.Lit); ok {
			b.WriteString(l.Value)
			continue
		}
		af := e.Word(&syntax.Word{Parts: []syntax.WordPart{p}})
		if af.Pid && f != nil {
			f.Pid = true
		}
		if !af.Known {
			return "", false
		}
		switch p.(type) {
		case *syntax.SglQuoted, *syntax.DblQuoted:
			b.WriteString(pattern.QuoteMeta(af.Str, 0))
		default:
			b.WriteString(af.Str)
		}
	}
	return b.String(), true
}
