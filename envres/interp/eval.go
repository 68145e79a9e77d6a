package interp

import (
	"errors"
	"path"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/pattern"
	"mvdan.cc/sh/v3/syntax"
)

// maxValueLen bounds the strings the analysis tracks; longer values are
// unknown.
const maxValueLen = 4096

// field is one evaluated word (or one field of "$@").
type field struct {
	Str string // the value; when !known, the parts that are known
	// v is the abstract value when the word is exactly one parameter
	// expansion or a literal, so that X=$SAVED keeps "the caller's value".
	Val  value
	Pos  syntax.Pos
	Word *syntax.Word
	// subw is the word whose command and process substitutions the field
	// has (its own word, or an argument's for "$@"), nil when none.
	SubWord *syntax.Word
	// self names the variable when the word is exactly $X, ${X:-d},
	// ${X-d}, ${X:=d} or ${X:?m}: X=${X:-d} keeps a value X has.
	Self  string
	Known bool
	Pid   bool // mentions $! or a variable holding it
	// (the booleans last: the struct is 88 bytes, not 104.)
	Quoted bool
	// splat stands for zero or more unknown positional parameters.
	Splat bool
}

// substs returns the word's command substitutions (those parts
// evaluates: not inside another expansion's operand).
func (f *field) Substs() []*syntax.CmdSubst {
	if f.SubWord == nil {
		return nil
	}
	var out []*syntax.CmdSubst
	eachSubst(f.SubWord.Parts, func(p syntax.WordPart) {
		if cs, ok := p.(*syntax.CmdSubst); ok {
			out = append(out, cs)
		}
	})
	return out
}

// procs returns the word's process substitutions.
func (f *field) Procs() []*syntax.ProcSubst {
	if f.SubWord == nil {
		return nil
	}
	var out []*syntax.ProcSubst
	eachSubst(f.SubWord.Parts, func(p syntax.WordPart) {
		if ps, ok := p.(*syntax.ProcSubst); ok {
			out = append(out, ps)
		}
	})
	return out
}

// eachSubst calls fn for each command and process substitution among
// parts, in order, looking into double quotes as parts does.
func eachSubst(parts []syntax.WordPart, fn func(syntax.WordPart)) {
	for _, p := range parts {
		switch p := p.(type) {
		case *syntax.DblQuoted:
			eachSubst(p.Parts, fn)
		case *syntax.CmdSubst, *syntax.ProcSubst:
			fn(p)
		}
	}
}

// maxFields bounds the words a command's "$@" expands to (with
// maxArrayElems and maxValueLen, the size of what the analysis holds).
const maxFields = 1024

// unknownArgs are positional parameters that are not known.
var unknownArgs = []field{{Splat: true, Val: unknownValue}}

// argsKnown reports whether every positional parameter is known in number.
func argsKnown(args []field) bool {
	for _, a := range args {
		if a.Splat {
			return false
		}
	}
	return true
}

func litField(s string, pos syntax.Pos) field {
	return field{Str: s, Known: true, Val: lit(s), Pos: pos}
}

// evalHost is what the evaluator asks of the walk. c is the walk's own
// context (its state and file), handed back unread.
type evalHost interface {
	// fields returns an empty slice with room for n fields.
	Fields(n int) []field
	// override reports whether name is protected, and whether its
	// override is known to be empty.
	Override(name string) (protected, empty bool)
	// assignDefault records ${X:=d}'s assignment of v to name.
	AssignDefault(c walkCtx, name string, v value, known bool, pos syntax.Pos)
}

// evaluator evaluates words against a scope.
type evaluator struct {
	Host  evalHost
	Scope *scope
	Ctx   walkCtx
}

// fields evaluates the words of a command, expanding "$@".
func (e *evaluator) Fields(words []*syntax.Word) []field {
	out := e.Host.Fields(len(words))
	for _, w := range words {
		if at := atWord(w); at {
			if len(out)+len(e.Scope.Args) > maxFields {
				// set -- "$@" "$@" doubles them: past the bound, the
				// rest is unknown words.
				out = append(out, field{Splat: true, Val: unknownValue, Pos: w.Pos(), Word: w})
				continue
			}
			for _, f := range e.Scope.Args {
				f.Pos = w.Pos()
				f.Word = w
				out = append(out, f)
			}
			continue
		}
		if name := arrayParam(w); name != "" {
			if vs, ok := e.Scope.Get(name); ok && vs.Words().IsArr {
				// "${CMD[@]}" of an array of literal words: its words.
				for _, el := range vs.Words().Arr {
					out = append(out, litField(el, w.Pos()))
				}
				continue
			} else if ok && len(vs.Words().Head) > 0 {
				// Known in part: its leading words, then words not
				// known statically.
				for _, el := range vs.Words().Head {
					out = append(out, litField(el, w.Pos()))
				}
				out = append(out, field{Splat: true, Val: unknownValue, Pos: w.Pos(), Word: w})
				continue
			}
		}
		f := e.Word(w)
		if name, quoted := scalarWord(w); name != "" && !quoted && f.Known && strings.ContainsAny(f.Str, " \t\n") {
			// $SUDO holding "sudo -u app": split on IFS's default.
			for _, s := range strings.Fields(f.Str) {
				out = append(out, litField(s, w.Pos()))
			}
			continue
		}
		out = append(out, f)
	}
	return out
}

// scalarWord returns NAME and whether it is quoted when w is $NAME,
// ${NAME} or "$NAME" alone.
func scalarWord(w *syntax.Word) (string, bool) {
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

// walkCtx is the walk's context of an evaluator: the state and the file
// its words are evaluated in.
type walkCtx struct {
	st *state
	fc *fileCtx
}

// eval returns an evaluator of words in st, from the file fc.
func (a *analyzer) eval(st *state, fc *fileCtx) *evaluator {
	return &evaluator{Host: a, Scope: &st.scope, Ctx: walkCtx{st, fc}}
}

// forked returns an evaluator like ev on a fork of its state.
func forked(ev *evaluator) *evaluator {
	st := ev.Ctx.st.fork()
	return &evaluator{Host: ev.Host, Scope: &st.scope, Ctx: walkCtx{st, ev.Ctx.fc}}
}

func (a *analyzer) Override(name string) (protected, empty bool) {
	p := a.prot[name]
	return p != nil, p != nil && p.known && p.value == ""
}

// fieldChunk is how many fields fields allocates at once.
const fieldChunk = 512

// fields returns an empty slice with room for n fields, cut from a
// chunk shared by many commands: one allocation for hundreds of commands
// instead of one each. The chunk is a stack: stmt gives back what the
// statement's words took when it ends (releaseFields), so the same memory
// serves the next statement. Nothing keeps a []field past its statement:
// set -- copies, a function's or sourced file's arguments are restored
// when it returns, and a cmdRef keeps its fields only for Plan, which
// gives nothing back. Appending past n copies as usual.
func (a *analyzer) Fields(n int) []field {
	if n > fieldChunk/4 {
		return make([]field, 0, n)
	}
	if len(a.fieldBuf)+n > cap(a.fieldBuf) {
		// A new chunk; the old one stays with the slices cut from it.
		a.fieldBuf = make([]field, 0, fieldChunk)
		a.fieldGen++
	}
	s := a.fieldBuf[len(a.fieldBuf) : len(a.fieldBuf) : len(a.fieldBuf)+n]
	a.fieldBuf = a.fieldBuf[:len(a.fieldBuf)+n]
	return s
}

// fieldMark is how far the field stack was taken.
type fieldMark struct{ n, gen int }

func (a *analyzer) markFields() fieldMark { return fieldMark{len(a.fieldBuf), a.fieldGen} }

// releaseFields gives back the fields taken since m. When a new chunk was
// started since, all of it was taken since m. Plan keeps commands'
// fields: it gives nothing back.
func (a *analyzer) releaseFields(m fieldMark) {
	switch {
	case a.plan != nil:
	case m.gen == a.fieldGen:
		a.fieldBuf = a.fieldBuf[:m.n]
	default:
		a.fieldBuf = a.fieldBuf[:0]
	}
}

// atWord reports whether w is "$@", $@, "${@}" or $*.
func atWord(w *syntax.Word) bool {
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

func (e *evaluator) Word(w *syntax.Word) field {
	f := field{Known: true, Pos: w.Pos(), Word: w}
	var b wordBuf
	e.Parts(w.Parts, &b, &f, false)
	f.Str = b.String()
	if len(f.Str) > maxValueLen {
		// Values built by doubling would blow up memory: forget them.
		f.Str, f.Known = f.Str[:maxValueLen], false
	}
	if f.Known {
		f.Val = lit(f.Str)
	} else {
		f.Val = unknownValue
	}
	// A word that is exactly one expansion of a variable carries its value.
	if len(w.Parts) == 1 {
		p := w.Parts[0]
		if dq, ok := p.(*syntax.DblQuoted); ok && len(dq.Parts) == 1 {
			p = dq.Parts[0]
		}
		if pe, ok := p.(*syntax.ParamExp); ok && (simpleParam(pe) || e.keepsOwnValue(pe)) {
			if vs, ok := e.Scope.Get(pe.Param.Value); ok && vs.Val.Kind == vOrig {
				f.Val = vs.Val
			}
		}
		if pe, ok := p.(*syntax.ParamExp); ok && selfDefault(pe) {
			f.Self = pe.Param.Value
		}
	}
	return f
}

// keepsOwnValue reports whether ${X:-d}, ${X:=d} or ${X:?m} yields X's own
// value: X is a protected variable the launcher sets to a non-empty value.
func (e *evaluator) keepsOwnValue(pe *syntax.ParamExp) bool {
	if pe.Param == nil || pe.Exp == nil || pe.Length || pe.Excl || pe.Index != nil || pe.Slice != nil || pe.Repl != nil || pe.NestedParam != nil {
		return false
	}
	switch pe.Exp.Op {
	case syntax.DefaultUnset, syntax.DefaultUnsetOrNull, syntax.AssignUnset, syntax.AssignUnsetOrNull, syntax.ErrorUnset, syntax.ErrorUnsetOrNull:
	default:
		return false
	}
	vs, ok := e.Scope.Get(pe.Param.Value)
	if !ok || vs.Val.Kind != vOrig {
		return false
	}
	prot, empty := e.Host.Override(vs.Val.Str)
	return prot && !empty
}

// selfDefault reports whether pe is $X or ${X:-d} (and the -, :=, =, :?,
// ? forms): its value is X's own whenever X is set (and non-empty).
func selfDefault(pe *syntax.ParamExp) bool {
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

func (e *evaluator) Parts(parts []syntax.WordPart, b *wordBuf, f *field, inDq bool) {
	for _, p := range parts {
		switch p := p.(type) {
		case *syntax.Lit:
			v := p.Value
			if !inDq {
				v = unescapeLit(v)
				if strings.HasPrefix(v, "~") && b.Len() == 0 {
					f.Known = false
				}
			} else {
				v = unescapeDq(v)
			}
			b.WriteString(v)
		case *syntax.SglQuoted:
			f.Quoted = true
			if p.Dollar {
				b.WriteString(ansiC(p.Value))
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

// wordBuf builds an evaluated word; a word of one piece (most words)
// is that piece's string, not a copy.
type wordBuf struct {
	first string
	n     int
	b     strings.Builder
}

func (w *wordBuf) WriteString(s string) {
	if s == "" {
		return
	}
	switch w.n {
	case 0:
		w.first = s
	case 1:
		w.b.Grow(len(w.first) + len(s) + 16)
		w.b.WriteString(w.first)
		w.b.WriteString(s)
	default:
		w.b.WriteString(s)
	}
	w.n++
}

func (w *wordBuf) Len() int {
	if w.n <= 1 {
		return len(w.first)
	}
	return w.b.Len()
}

func (w *wordBuf) String() string {
	if w.n <= 1 {
		return w.first
	}
	return w.b.String()
}

func unescapeLit(s string) string {
	if !strings.Contains(s, "\\") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			i++
			if s[i] == '\n' {
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

func unescapeDq(s string) string {
	if !strings.Contains(s, "\\") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			switch s[i+1] {
			case '"', '\\', '$', '`':
				i++
			case '\n':
				i++
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

func ansiC(s string) string {
	if uq, err := strconv.Unquote(`"` + strings.ReplaceAll(s, `"`, `\"`) + `"`); err == nil {
		return uq
	}
	return s
}

// param evaluates a parameter expansion: paramValue reads the parameter,
// then one step per operator family (defaultOp for ${x-d} ${x:-d} ${x=d}
// ${x:=d} ${x?m} ${x:?m}, alternateOp for ${x+a} ${x:+a}, trimOp for
// ${x%p} ${x%%p} ${x#p} ${x##p}) applies the operator. Any other form is
// unknown.
func (e *evaluator) param(pe *syntax.ParamExp, f *field) (string, bool) {
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
func (e *evaluator) shellParam(pe *syntax.ParamExp, f *field) (string, bool) {
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
	env := expand.ListEnviron()
	if cur.set {
		env = expand.ListEnviron(name + "=" + cur.s)
	}
	cp := *pe
	cp.Dollar = syntax.Pos{}
	out, err := expand.Literal(&expand.Config{Env: env}, &syntax.Word{Parts: []syntax.WordPart{&cp}})
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
func (e *evaluator) paramValue(pe *syntax.ParamExp, f *field) (c paramCur, ok bool) {
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
		return paramCur{strconv.Itoa(len(e.Scope.Args)), true, argsKnown(e.Scope.Args)}, true
	case "?", "$", "-", "RANDOM", "LINENO", "SECONDS":
		return c, false
	}
	if n, err := atoiDigits(name); err == nil {
		if !argsKnown(e.Scope.Args[:min(n, len(e.Scope.Args))]) {
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
		vs = defaultVar()
	}
	switch vs.Val.Kind {
	case vLit:
		return paramCur{vs.Val.Str, true, true}, true
	case vUnset:
		return paramCur{"", false, true}, true
	}
	return c, true
}

// paramArg evaluates the word after a parameter expansion's operator ("" and
// known when there is none), recording f.pid when it holds a background pid.
func (e *evaluator) paramArg(pe *syntax.ParamExp, f *field) (string, bool) {
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
func (e *evaluator) defaultOp(pe *syntax.ParamExp, f *field, cur paramCur) (string, bool) {
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
			e.Host.AssignDefault(e.Ctx, name, value{Kind: vLit, Str: d}, dk, pe.Pos())
		}
		return d, dk
	}
	// Not known whether set: a protected name is set by the launcher.
	if vs, ok := e.Scope.Get(name); ok && vs.Val.Kind == vOrig {
		prot, empty := e.Host.Override(vs.Val.Str)
		if prot && !empty {
			return cur.s, false
		}
		if prot && assign && syntax.ValidName(name) {
			// An empty override is replaced.
			e.Host.AssignDefault(e.Ctx, name, value{Kind: vLit, Str: d}, dk, pe.Pos())
			return d, dk
		}
	}
	if assign && syntax.ValidName(name) {
		e.Host.AssignDefault(e.Ctx, name, unknownValue, false, pe.Pos())
	}
	return "", false
}

// alternateOp applies ${x+a} and ${x:+a} to cur: the word when the
// variable is set (and not null), "" when it is not, unknown when cur is.
func (e *evaluator) alternateOp(pe *syntax.ParamExp, f *field, cur paramCur) (string, bool) {
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
func (e *evaluator) trimOp(pe *syntax.ParamExp, f *field, cur paramCur) (string, bool) {
	pat, pk := e.PatternWord(pe.Exp.Word, f)
	if !cur.known || !pk || len(cur.s) > 1024 || len(pat) > 256 {
		return "", false
	}
	return trimPattern(cur.s, pat, pe.Exp.Op)
}

// patternWord evaluates a word that is a pattern (an operator's, a case
// item's): quoted parts match themselves (pattern.QuoteMeta), a literal
// keeps its backslash escapes, an unquoted expansion's value is a pattern,
// as bash reads them. f, when not nil, is marked when $! was read.
func (e *evaluator) PatternWord(w *syntax.Word, f *field) (string, bool) {
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

// shellPattern compiles a shell pattern (mvdan.cc/sh/v3/pattern, as its
// expand package does) to match a whole string; nil when it is not a valid
// pattern (bash then matches it as a literal string).
func shellPattern(pat string) *regexp.Regexp {
	expr, err := pattern.Regexp(pat, pattern.EntireString)
	if err != nil {
		return nil
	}
	rx, err := regexp.Compile(expr)
	if err != nil {
		return nil
	}
	return rx
}

// shellMatch reports whether s matches the shell pattern pat as case and
// [[ == ]] match it: * and ? cross '/', [!…] and [^…] negate, classes.
func shellMatch(pat, s string) bool {
	if rx := shellPattern(pat); rx != nil {
		return rx.MatchString(s)
	}
	return pat == s
}

// trimPattern implements ${x%p}, ${x%%p}, ${x#p} and ${x##p} as bash does:
// the shortest or longest suffix or prefix of s that matches p as a whole
// is removed. It reports false for a pattern it cannot read
// (an extglob negation).
func trimPattern(s, pat string, op syntax.ParExpOperator) (string, bool) {
	rx := shellPattern(pat)
	if rx == nil {
		if _, err := pattern.Regexp(pat, 0); err != nil && strings.Contains(err.Error(), "extglob") {
			return "", false
		}
	}
	match := func(t string) bool {
		if rx == nil {
			return t == pat
		}
		return rx.MatchString(t)
	}
	n := len(s)
	// In a UTF-8 locale the shell cuts between characters, never inside
	// one: a cut at a continuation byte is no candidate.
	utf := utf8.ValidString(s)
	if strings.Contains(pat, "[:") && !isASCII(s) {
		// The locale's classes ([[:upper:]] holds Ä in C.UTF-8) are
		// not Go's ASCII ones: unknown.
		return "", false
	}
	cut := func(i int) bool { return !utf || i == n || utf8.RuneStart(s[i]) }
	switch op {
	case syntax.RemSmallSuffix:
		for i := n; i >= 0; i-- {
			if cut(i) && match(s[i:]) {
				return s[:i], true
			}
		}
	case syntax.RemLargeSuffix:
		for i := 0; i <= n; i++ {
			if cut(i) && match(s[i:]) {
				return s[:i], true
			}
		}
	case syntax.RemSmallPrefix:
		for i := 0; i <= n; i++ {
			if cut(i) && match(s[:i]) {
				return s[i:], true
			}
		}
	case syntax.RemLargePrefix:
		for i := n; i >= 0; i-- {
			if cut(i) && match(s[:i]) {
				return s[i:], true
			}
		}
	}
	return s, true
}

// isASCII reports whether s is all ASCII.
func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// substCmds are the commands substEval evaluates.
var substCmds = map[string]bool{"cd": true, "pwd": true, "dirname": true, "basename": true, "realpath": true, "readlink": true, "echo": true, "printf": true}

// substEval evaluates the command substitutions scripts use to find their
// own directory: dirname, basename, pwd, cd, realpath, readlink -f, echo,
// printf '%s', joined by && or ;. Anything else is unknown. It records no
// facts: the commands run in a substRun, whose directory starts as the
// script's.
func (e *evaluator) substEval(stmts []*syntax.Stmt) (string, bool) {
	if len(stmts) == 0 {
		return "", true
	}
	r := substRun{ev: *e, cwd: e.Scope.Cwd}
	for _, s := range stmts {
		if s.Background || s.Negated {
			return "", false
		}
		if !r.stmt(s) {
			return "", false
		}
	}
	return strings.TrimRight(r.out, "\n"), true
}

// substRun is one substEval: the substitution's own directory (cd changes
// it, not the script's) and the output of its last command.
type substRun struct {
	ev  evaluator
	cwd string
	out string
}

// stmt runs one statement of the substitution: a && list or a simple
// command without assignments. Anything else is unknown (false).
func (r *substRun) stmt(s *syntax.Stmt) bool {
	switch c := s.Cmd.(type) {
	case *syntax.BinaryCmd:
		if c.Op != syntax.AndStmt {
			return false
		}
		return r.stmt(c.X) && r.stmt(c.Y)
	case *syntax.CallExpr:
		if len(c.Args) == 0 || len(c.Assigns) > 0 {
			return false
		}
		if n := c.Args[0].Lit(); n != "" && !substCmds[n] && !strings.Contains(n, "\\") {
			// A command this evaluation does not know: its output is
			// unknown, whatever its arguments are.
			return false
		}
		return r.call(c)
	}
	return false
}

// call evaluates a simple command's words in the substitution's directory
// and, when all are known, runs it: dirCmd for cd and pwd, pathCmd for
// dirname, basename, realpath and readlink, printCmd for echo and printf.
func (r *substRun) call(c *syntax.CallExpr) bool {
	saveCwd := r.ev.Scope.Cwd
	r.ev.Scope.Cwd = r.cwd
	fs := r.ev.Fields(c.Args)
	r.ev.Scope.Cwd = saveCwd
	for _, f := range fs {
		if !f.Known {
			return false
		}
	}
	name := fs[0].Str
	args := []string{}
	for _, f := range fs[1:] {
		args = append(args, f.Str)
	}
	switch name {
	case "cd", "pwd":
		return r.dirCmd(name, args)
	case "dirname", "basename", "realpath", "readlink":
		return r.pathCmd(name, args)
	case "echo", "printf":
		return r.printCmd(name, args)
	}
	return false
}

// substOperands are a command's operands: its arguments without the
// options before "--" (a lone "-" is an operand) and without that "--".
func substOperands(args []string) []string {
	var r []string
	dd := false
	for _, x := range args {
		if !dd && x == "--" {
			dd = true
			continue
		}
		if !dd && strings.HasPrefix(x, "-") && x != "-" {
			continue
		}
		r = append(r, x)
	}
	return r
}

// dirCmd runs cd DIR (moves the substitution's directory, no output) and
// pwd (outputs it); unknown when the directory is.
func (r *substRun) dirCmd(name string, args []string) bool {
	if name == "pwd" {
		if r.cwd == "" {
			return false
		}
		r.out = r.cwd
		return true
	}
	p := substOperands(args)
	if len(p) != 1 {
		return false
	}
	if r.cwd = joinPath(r.cwd, p[0]); r.cwd == "" {
		return false
	}
	r.out = ""
	return true
}

// pathCmd runs dirname PATH, basename PATH [SUFFIX], realpath PATH and
// readlink -f PATH (a readlink without options is unknown); realpath and
// readlink resolve symbolic links when the path exists.
func (r *substRun) pathCmd(name string, args []string) bool {
	p := substOperands(args)
	switch name {
	case "dirname":
		if len(p) != 1 {
			return false
		}
		r.out = shellDirname(p[0])
	case "basename":
		if len(p) < 1 {
			return false
		}
		r.out = path.Base(p[0])
		if len(p) > 1 {
			r.out = strings.TrimSuffix(r.out, p[1])
		}
	default: // realpath, readlink
		if len(p) != 1 || (name == "readlink" && len(p) == len(args)) {
			return false
		}
		j := joinPath(r.cwd, p[0])
		if j == "" {
			return false
		}
		if res, err := filepath.EvalSymlinks(j); err == nil {
			j = res
		}
		r.out = j
	}
	return true
}

// printCmd runs echo (its operands joined by blanks) and printf '%s' ARG or
// printf TEXT without directives or escapes; any other printf is unknown.
func (r *substRun) printCmd(name string, args []string) bool {
	if name == "echo" {
		r.out = strings.Join(substOperands(args), " ")
		return true
	}
	if len(args) == 2 && args[0] == "%s" {
		r.out = args[1]
	} else if len(args) == 1 && !strings.ContainsAny(args[0], "%\\") {
		r.out = args[0]
	} else {
		return false
	}
	return true
}

// shellDirname is dirname(1).
func shellDirname(p string) string {
	if p == "" {
		return "."
	}
	t := strings.TrimRight(p, "/")
	if t == "" {
		return "/"
	}
	i := strings.LastIndex(t, "/")
	if i < 0 {
		return "."
	}
	d := strings.TrimRight(t[:i], "/")
	if d == "" {
		return "/"
	}
	return d
}

// joinPath resolves p against the directory cwd ("" when unknown).
func joinPath(cwd, p string) string {
	if p == "" {
		return ""
	}
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	if cwd == "" {
		return ""
	}
	return filepath.Join(cwd, p)
}

var errNotDigits = errors.New("not a number")

// atoiDigits is strconv.Atoi for names made of digits only ($1, ${10}),
// without building an error for every other variable name.
func atoiDigits(s string) (int, error) {
	if !isDigits(s) {
		return 0, errNotDigits
	}
	return strconv.Atoi(s)
}
