package resolve

import (
	"mvdan.cc/sh/v3/syntax"

	"github.com/childproof/childproof/envres/facts"
	"github.com/childproof/childproof/envres/internal/expand"
	"github.com/childproof/childproof/envres/internal/shape"
	"github.com/childproof/childproof/envres/plan"
)

// Resolver resolves the worker starts of one walk. It is not safe for
// concurrent use: one walk calls it.
type Resolver[E, C any] struct {
	walk Walk[E, C]
	// dir is the absolute directory relative env files are under.
	dir     string
	exports map[string]export // the last exported script assignment of each name
}

type export struct {
	v    expand.Value
	site facts.Site
}

// evaluator is the walk's evaluator.
type evaluator[E, C any] = expand.Evaluator[E, C]

// New returns a resolver for a walk of scripts under dir (absolute).
func New[E, C any](w Walk[E, C], dir string) *Resolver[E, C] {
	return &Resolver[E, C]{walk: w, dir: dir, exports: map[string]export{}}
}

// Assigned is called for every assignment the walk makes: e made ns.
func (r *Resolver[E, C]) Assigned(name string, ns expand.VarState[E], e *E) {
	if e == nil || ns.Exp != expand.Yes {
		return
	}
	if o := r.walk.Origin(e); o.Kind == Assign && !o.InFunc {
		r.exports[name] = export{v: ns.Val, site: o.At}
	}
}

// Argv resolves a worker's argv from the command's evaluated fields fs.
func (r *Resolver[E, C]) Argv(ev *evaluator[E, C], fs []expand.Field) []plan.Word {
	var out []plan.Word
	for _, f := range fs {
		out = append(out, r.fieldWord(ev, f))
	}
	return out
}

// fieldWord resolves one evaluated field of a command.
func (r *Resolver[E, C]) fieldWord(ev *evaluator[E, C], f expand.Field) plan.Word {
	w := plan.Word{Text: shape.WordText(f.Word)}
	switch {
	case f.Known && f.Word != nil && r.wordLoaded(ev, f.Word, 0):
		// Built from a value read from an env file: the value is no
		// literal of the script; resolve it as references, or not at all.
		if parts, ok := r.symParts(ev, f.Word.Parts, false, 0); ok {
			w.Parts = parts
		}
	case f.Known:
		w.Parts = []plan.Part{{Lit: f.Str}}
		if w.Text == "" {
			w.Text = f.Str
		}
	case f.Splat:
		if w.Text == "" {
			w.Text = `"$@"`
		}
	case f.Val.Kind == expand.Orig:
		w.Parts = []plan.Part{{Env: f.Val.Str}}
	case f.Word != nil && !expand.AtWord(f.Word):
		if parts, ok := r.symParts(ev, f.Word.Parts, false, 0); ok {
			w.Parts = parts
		}
	}
	return w
}

const maxSymDepth = 8

// symParts resolves word parts into literal text and caller variables.
func (r *Resolver[E, C]) symParts(ev *evaluator[E, C], parts []syntax.WordPart, inDq bool, depth int) ([]plan.Part, bool) {
	out := []plan.Part{}
	for _, wp := range parts {
		switch x := wp.(type) {
		case *syntax.DblQuoted:
			sub, ok := r.symParts(ev, x.Parts, true, depth)
			if !ok {
				return nil, false
			}
			out = append(out, sub...)
		case *syntax.ParamExp:
			sub, ok := r.symParam(ev, x, depth)
			if !ok {
				return nil, false
			}
			out = append(out, sub...)
		default:
			s, ok := r.tryParts(ev, wp, inDq)
			if !ok {
				return nil, false
			}
			out = append(out, plan.Part{Lit: s})
		}
	}
	return joinLits(out), true
}

func joinLits(ps []plan.Part) []plan.Part {
	out := ps[:0]
	for _, q := range ps {
		if n := len(out); n > 0 && q.Env == "" && out[n-1].Env == "" {
			out[n-1].Lit += q.Lit
			continue
		}
		if q.Env == "" && q.Lit == "" {
			continue
		}
		out = append(out, q)
	}
	return out
}

// tryParts evaluates one word part as the walk does, on a copy of the
// state (${X:=d} assigns).
func (r *Resolver[E, C]) tryParts(ev *evaluator[E, C], wp syntax.WordPart, inDq bool) (string, bool) {
	var b expand.WordBuf
	f := expand.Field{Known: true}
	tmp := r.walk.Fork(ev)
	tmp.Parts([]syntax.WordPart{wp}, &b, &f, inDq)
	return b.String(), f.Known
}

// symParam resolves one parameter expansion.
func (r *Resolver[E, C]) symParam(ev *evaluator[E, C], pe *syntax.ParamExp, depth int) ([]plan.Part, bool) {
	simple := pe.Param != nil && !pe.Excl && !pe.Length && pe.Index == nil && pe.Slice == nil && pe.Repl == nil &&
		pe.NestedParam == nil && pe.Names == 0 && syntax.ValidName(pe.Param.Value)
	loaded, derived := "", false
	if pe.Param != nil {
		loaded, derived = r.loadedFrom(ev, pe.Param.Value, depth)
		if (loaded != "" || derived) && !simple {
			return nil, false // ${KEY:0:4}, ${#KEY} of a value read from an env file
		}
	}
	if s, ok := r.tryParts(ev, pe, true); ok && loaded == "" && !derived {
		return []plan.Part{{Lit: s}}, true
	}
	if !simple {
		return nil, false
	}
	name := pe.Param.Value
	vs, tracked := ev.Scope.Get(name)
	var base []plan.Part
	caller := false
	switch {
	case loaded != "":
		base, caller = []plan.Part{{Env: name, Loaded: loaded}}, true
	case derived:
		sub, ok := r.fromOrigins(ev, name, vs.Origins, depth)
		if !ok {
			return nil, false
		}
		base = sub
	case !tracked || vs.Val.Kind == expand.Unknown && len(vs.Origins) == 0:
		base, caller = []plan.Part{{Env: name}}, true
	case vs.Val.Kind == expand.Orig:
		base, caller = []plan.Part{{Env: vs.Val.Str}}, true
	case vs.Val.Kind == expand.Unknown:
		sub, ok := r.fromOrigins(ev, name, vs.Origins, depth)
		if !ok {
			return nil, false
		}
		base = sub
	default:
		return nil, false
	}
	if pe.Exp == nil {
		return base, true
	}
	if !caller {
		return nil, false
	}
	switch pe.Exp.Op {
	case syntax.DefaultUnset, syntax.DefaultUnsetOrNull, syntax.AssignUnset, syntax.AssignUnsetOrNull:
		d := ""
		if pe.Exp.Word != nil {
			dp, ok := r.symParts(ev, pe.Exp.Word.Parts, false, depth+1)
			if !ok {
				return nil, false
			}
			s, lit := plan.Word{Parts: dp}.Literal()
			if !lit {
				return nil, false
			}
			d = s
		}
		base[0].Default, base[0].HasDefault = d, true
	case syntax.ErrorUnset, syntax.ErrorUnsetOrNull:
		base[0].Required = true
	default:
		return nil, false
	}
	return base, true
}

// fromOrigins is fromOrigin of a variable's one origin; a variable set by
// more than one statement is not resolved.
func (r *Resolver[E, C]) fromOrigins(ev *evaluator[E, C], name string, origins []*E, depth int) ([]plan.Part, bool) {
	if len(origins) != 1 {
		return nil, false
	}
	return r.fromOrigin(ev, name, r.walk.Origin(origins[0]), depth)
}

// fromOrigin resolves a variable the script set to a value the walk does
// not know, from the one statement o that set it: PORT=${PORT:-8080},
// : "${PORT:=8080}", URL="http://$HOST:$PORT".
func (r *Resolver[E, C]) fromOrigin(ev *evaluator[E, C], name string, o Origin, depth int) ([]plan.Part, bool) {
	if depth >= maxSymDepth {
		return nil, false
	}
	if o.Kind != Assign || o.InFunc {
		return nil, false
	}
	asg, pexp := r.originStmt(o, name)
	if asg == nil && pexp == nil {
		return nil, false
	}
	// In the statement, the name itself is the caller's value.
	self := r.walk.Fork(ev)
	self.Scope.Set(name, expand.DefaultVar[E]())
	switch {
	case asg != nil && asg.Array == nil && asg.Index == nil && !asg.Append:
		if asg.Value == nil {
			return []plan.Part{}, true
		}
		return r.symParts(self, asg.Value.Parts, false, depth+1)
	case pexp != nil:
		return r.symParam(self, pexp, depth+1)
	}
	return nil, false
}

// originStmt finds the statement of assignment o that set name:
// NAME=WORD, or ${NAME:=WORD}.
func (r *Resolver[E, C]) originStmt(o Origin, name string) (*syntax.Assign, *syntax.ParamExp) {
	file := r.walk.Syntax(o.At.File)
	if file == nil {
		return nil, nil
	}
	at := func(pos syntax.Pos) bool { return int(pos.Line()) == o.At.Line && int(pos.Col()) == o.At.Column }
	var asg *syntax.Assign
	var pexp *syntax.ParamExp
	syntax.Walk(file, func(n syntax.Node) bool {
		if asg != nil || pexp != nil {
			return false
		}
		switch x := n.(type) {
		case *syntax.Assign:
			if x.Name != nil && x.Name.Value == name && at(x.Pos()) {
				asg = x
			}
		case *syntax.ParamExp:
			if x.Param != nil && x.Param.Value == name && at(x.Pos()) {
				pexp = x
			}
		}
		return true
	})
	return asg, pexp
}

// loadedFrom says whether name's current value was read from an env
// file: loaded names the file (as its load describes it) when an env-file
// load set it; derived is set when a script assignment built it from such
// a value (OTHER="$API_KEY", URL="https://u:${API_KEY}@host").
func (r *Resolver[E, C]) loadedFrom(ev *evaluator[E, C], name string, depth int) (loaded string, derived bool) {
	vs, ok := ev.Scope.Get(name)
	if !ok {
		return "", false
	}
	for _, e := range vs.Origins {
		if o := r.walk.Origin(e); o.Kind == Load {
			what := o.What
			if what == "" {
				what = "an env file"
			}
			return what, false
		}
	}
	if depth >= maxSymDepth || len(vs.Origins) != 1 {
		return "", false
	}
	o := r.walk.Origin(vs.Origins[0])
	if o.Kind != Assign {
		return "", false
	}
	asg, pexp := r.originStmt(o, name)
	var n syntax.Node
	switch {
	case asg != nil && asg.Value != nil:
		n = asg.Value
	case pexp != nil && pexp.Exp != nil && pexp.Exp.Word != nil:
		n = pexp.Exp.Word
	default:
		return "", false
	}
	return "", r.nodeLoaded(ev, n, name, depth+1)
}

// nodeLoaded reports whether a word reads a variable (other than self)
// whose value was read from an env file.
func (r *Resolver[E, C]) nodeLoaded(ev *evaluator[E, C], n syntax.Node, self string, depth int) bool {
	found := false
	syntax.Walk(n, func(n syntax.Node) bool {
		if found {
			return false
		}
		if pe, ok := n.(*syntax.ParamExp); ok && pe.Param != nil && pe.Param.Value != self {
			if l, d := r.loadedFrom(ev, pe.Param.Value, depth); l != "" || d {
				found = true
			}
		}
		return !found
	})
	return found
}

// wordLoaded reports whether a word of the script reads a value read
// from an env file.
func (r *Resolver[E, C]) wordLoaded(ev *evaluator[E, C], w *syntax.Word, depth int) bool {
	return r.nodeLoaded(ev, w, "", depth)
}
