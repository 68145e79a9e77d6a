package schema

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
)

// The work budget of evaluating a spec. HCL evaluates `for` expressions
// and `%{ for }` template directives eagerly: three nested ones over a
// 200-element list made 8 million iterations (580 MB, 11 s) from a 1 KB
// spec, and a 4 KB one ran out of memory. Before an expression is
// evaluated, its cost is estimated from its syntax tree and the sizes of
// the variables it reads (an upper bound: a `for`'s body is counted once
// per element of its collection, a conditional's two branches both); an
// expression over the budget is refused with a diagnostic at its range,
// never evaluated.
const (
	// MaxEvalIterations bounds the iterations of `for` expressions,
	// `%{ for }` directives and splats in one attribute's expression.
	MaxEvalIterations = 100_000
	// MaxEvalBytes bounds the bytes one attribute's evaluation makes
	// (its value and the values built on the way, including what env()
	// and file() return), as estimated.
	MaxEvalBytes = 16 << 20
	// MaxSpecIterations and MaxSpecEvalBytes bound the same over all of
	// a spec's expressions together.
	MaxSpecIterations = 250_000
	MaxSpecEvalBytes  = 64 << 20
)

// Estimated costs of a value's parts, in bytes: each element, number or
// bool of a value (a cty value's own overhead) and each string's header.
const (
	elemCost   = 16
	scalarCost = 16
)

// shape bounds a value: size is its estimated bytes, n its number of
// elements (or a string's length), key the size of its keys (map and
// object keys, a list's indexes) and elem bounds each of its elements
// (nil: as big as the whole).
type shape struct {
	size, n, key float64
	elem         *shape
}

// cost is an expression's estimated cost: the shape of its value, the
// bytes made while evaluating it and the iterations it runs.
type cost struct {
	shape
	bytes, iters float64
}

// elemShape bounds an element of a value of shape s.
func (s shape) elemShape() shape {
	if s.elem != nil {
		return *s.elem
	}
	return shape{size: s.size, n: s.size, key: s.size}
}

// join bounds a value that is either a or b.
func join(a, b shape) shape {
	out := shape{size: math.Max(a.size, b.size), n: math.Max(a.n, b.n), key: math.Max(a.key, b.key)}
	switch {
	case a.elem == nil && b.elem == nil:
	case a.elem == nil:
		e := join(a.elemShape(), *b.elem)
		out.elem = &e
	case b.elem == nil:
		e := join(*a.elem, b.elemShape())
		out.elem = &e
	default:
		e := join(*a.elem, *b.elem)
		out.elem = &e
	}
	return out
}

// shapeOf measures a known value exactly (an unknown one counts as a
// scalar).
func shapeOf(v cty.Value) shape {
	v, _ = v.Unmark()
	switch {
	case v.IsNull() || !v.IsKnown():
		return shape{size: scalarCost}
	case v.Type() == cty.String:
		n := float64(len(v.AsString()))
		return shape{size: n + scalarCost, n: n}
	case v.Type().IsPrimitiveType():
		return shape{size: scalarCost}
	case !v.CanIterateElements():
		return shape{size: scalarCost}
	}
	out := shape{size: elemCost}
	var elem *shape
	for it := v.ElementIterator(); it.Next(); {
		k, e := it.Element()
		es := shapeOf(e)
		out.n++
		out.size += es.size + elemCost
		out.key = math.Max(out.key, shapeOf(k).size)
		if elem == nil {
			elem = &es
		} else {
			j := join(*elem, es)
			elem = &j
		}
	}
	if elem == nil {
		elem = &shape{}
	}
	out.elem = elem
	return out
}

// estimator estimates expressions' costs in one spec.
type estimator struct {
	vars   map[string]shape // var.NAME
	lookup func(string) (string, bool)
	dir    string // relative file() paths are under it
	scope  []map[string]shape
	anon   []shape // the items of the splats being estimated
	// manyIters and manyBytes are the first (innermost) `for` or splat
	// found over the iteration or the byte budget by itself: the
	// diagnostic points at it.
	manyIters, manyBytes *hcl.Range
}

// blame notes r as a culprit when c is over the budget by itself.
func (e *estimator) blame(c cost, r hcl.Range) cost {
	if e.manyIters == nil && !(c.iters <= MaxEvalIterations) {
		e.manyIters = &r
	}
	if e.manyBytes == nil && !(c.bytes <= MaxEvalBytes) {
		e.manyBytes = &r
	}
	return c
}

func newEstimator(vars map[string]cty.Value, lookup func(string) (string, bool), dir string) *estimator {
	e := &estimator{vars: map[string]shape{}, lookup: lookup, dir: dir}
	for k, v := range vars {
		e.vars[k] = shapeOf(v)
	}
	return e
}

// sum adds up the costs of evaluating each of xs once.
func (e *estimator) sum(xs ...hclsyntax.Expression) cost {
	var c cost
	for _, x := range xs {
		if x == nil {
			continue
		}
		xc := e.cost(x)
		c.size += xc.size
		c.bytes += xc.bytes
		c.iters += xc.iters
	}
	return c
}

// cost estimates x, an expression of the native syntax.
func (e *estimator) cost(x hclsyntax.Expression) cost {
	switch x := x.(type) {
	case *hclsyntax.LiteralValueExpr:
		s := shapeOf(x.Val)
		return cost{shape: s, bytes: s.size}
	case *hclsyntax.TemplateExpr:
		c := e.sum(x.Parts...)
		c.n = c.size
		c.size += scalarCost
		c.bytes += c.size
		return c
	case *hclsyntax.TemplateWrapExpr:
		return e.cost(x.Wrapped)
	case *hclsyntax.TemplateJoinExpr:
		c := e.cost(x.Tuple)
		// The joined string holds every element's text.
		c.shape = shape{size: c.size + scalarCost, n: c.size}
		c.bytes += c.size
		return c
	case *hclsyntax.ParenthesesExpr:
		return e.cost(x.Expression)
	case *hclsyntax.ScopeTraversalExpr:
		return cost{shape: e.traversal(x.Traversal)}
	case *hclsyntax.RelativeTraversalExpr:
		c := e.cost(x.Source)
		for range x.Traversal {
			c.shape = c.elemShape()
		}
		return c
	case *hclsyntax.IndexExpr:
		c := e.cost(x.Collection)
		k := e.cost(x.Key)
		c.shape = c.elemShape()
		c.bytes += k.bytes
		c.iters += k.iters
		return c
	case *hclsyntax.AnonSymbolExpr:
		if len(e.anon) > 0 {
			return cost{shape: e.anon[len(e.anon)-1]}
		}
		return cost{shape: shape{size: scalarCost}}
	case *hclsyntax.SplatExpr:
		src := e.cost(x.Source)
		e.anon = append(e.anon, src.elemShape())
		each := e.cost(x.Each)
		e.anon = e.anon[:len(e.anon)-1]
		n := src.n
		out := cost{bytes: src.bytes + n*each.bytes, iters: src.iters + n*(each.iters+1)}
		el := each.shape
		out.shape = shape{size: n*(each.size+elemCost) + elemCost, n: n, key: scalarCost, elem: &el}
		out.bytes += out.size
		return e.blame(out, x.SrcRange)
	case *hclsyntax.ForExpr:
		return e.blame(e.forExpr(x), x.SrcRange)
	case *hclsyntax.FunctionCallExpr:
		return e.call(x)
	case *hclsyntax.ConditionalExpr:
		// HCL evaluates both branches.
		t, f := e.cost(x.TrueResult), e.cost(x.FalseResult)
		c := e.sum(x.Condition)
		c.bytes += t.bytes + f.bytes
		c.iters += t.iters + f.iters
		c.shape = join(t.shape, f.shape)
		return c
	case *hclsyntax.BinaryOpExpr:
		c := e.sum(x.LHS, x.RHS)
		c.shape = shape{size: scalarCost}
		c.bytes += scalarCost
		return c
	case *hclsyntax.UnaryOpExpr:
		c := e.cost(x.Val)
		c.shape = shape{size: scalarCost}
		c.bytes += scalarCost
		return c
	case *hclsyntax.TupleConsExpr:
		c := cost{shape: shape{size: elemCost, key: scalarCost}}
		var elem *shape
		for _, ex := range x.Exprs {
			xc := e.cost(ex)
			c.n++
			c.size += xc.size + elemCost
			c.bytes += xc.bytes
			c.iters += xc.iters
			elem = joinElem(elem, xc.shape)
		}
		if elem == nil {
			elem = &shape{}
		}
		c.elem = elem
		c.bytes += c.size
		return c
	case *hclsyntax.ObjectConsExpr:
		c := cost{shape: shape{size: elemCost}}
		var elem *shape
		for _, it := range x.Items {
			k, v := e.cost(it.KeyExpr), e.cost(it.ValueExpr)
			c.n++
			c.size += k.size + v.size + elemCost
			c.key = math.Max(c.key, k.size)
			c.bytes += k.bytes + v.bytes
			c.iters += k.iters + v.iters
			elem = joinElem(elem, v.shape)
		}
		if elem == nil {
			elem = &shape{}
		}
		c.elem = elem
		c.bytes += c.size
		return c
	case *hclsyntax.ObjectConsKeyExpr:
		if kw := hcl.ExprAsKeyword(x.Wrapped); kw != "" && !x.ForceNonLiteral {
			n := float64(len(kw))
			return cost{shape: shape{size: n + scalarCost, n: n}, bytes: n + scalarCost}
		}
		return e.cost(x.Wrapped)
	}
	// Any other node (a syntax error's placeholder): its children, once.
	var c cost
	hclsyntax.VisitAll(x, func(n hclsyntax.Node) hcl.Diagnostics {
		if n != hclsyntax.Node(x) {
			c.bytes += scalarCost
		}
		return nil
	})
	c.shape = shape{size: c.bytes + scalarCost}
	return c
}

// traversal bounds what a variable reference reads: var.NAME, a `for`'s
// variable, and the indexes and attributes after them.
func (e *estimator) traversal(t hcl.Traversal) shape {
	if len(t) == 0 {
		return shape{size: scalarCost}
	}
	root := t.RootName()
	rest := t[1:]
	var s shape
	found := false
	for i := len(e.scope) - 1; i >= 0 && !found; i-- {
		s, found = e.scope[i][root]
	}
	if !found && root == "var" && len(rest) > 0 {
		if a, ok := rest[0].(hcl.TraverseAttr); ok {
			s, found = e.vars[a.Name]
			rest = rest[1:]
		}
	}
	if !found {
		// Not a name the spec knows: evaluation reports it.
		return shape{size: scalarCost}
	}
	for range rest {
		s = s.elemShape()
	}
	return s
}

// forExpr bounds a `for` expression or `%{ for }` directive: its body once
// per element of its collection.
func (e *estimator) forExpr(x *hclsyntax.ForExpr) cost {
	coll := e.cost(x.CollExpr)
	n := coll.n
	vars := map[string]shape{x.ValVar: coll.elemShape()}
	if x.KeyVar != "" {
		vars[x.KeyVar] = shape{size: coll.key, n: coll.key}
	}
	e.scope = append(e.scope, vars)
	var key, cond cost
	if x.KeyExpr != nil {
		key = e.cost(x.KeyExpr)
	}
	if x.CondExpr != nil {
		cond = e.cost(x.CondExpr)
	}
	val := e.cost(x.ValExpr)
	e.scope = e.scope[:len(e.scope)-1]
	body := cost{bytes: key.bytes + val.bytes + cond.bytes, iters: key.iters + val.iters + cond.iters}
	out := cost{iters: coll.iters + n*(body.iters+1), bytes: coll.bytes + n*body.bytes}
	el := val.shape
	out.shape = shape{size: n*(key.size+val.size+elemCost) + elemCost, n: n, key: math.Max(key.size, scalarCost), elem: &el}
	out.bytes += out.size
	return out
}

// call bounds env() and file(): the value's own size where the argument
// is literal (the variable's value, the file's size), else the largest
// they may return.
func (e *estimator) call(x *hclsyntax.FunctionCallExpr) cost {
	c := e.sum(x.Args...)
	limit := float64(MaxFileSize)
	size := limit
	if len(x.Args) > 0 {
		if lit, ok := literalString(x.Args[0]); ok {
			switch x.Name {
			case "env":
				size = 0
				if v, ok := e.lookup(lit); ok {
					size = float64(len(v))
				}
				if len(x.Args) > 1 {
					size = math.Max(size, e.cost(x.Args[1]).size)
				}
			case "file":
				p := lit
				if !filepath.IsAbs(p) {
					p = filepath.Join(e.dir, p)
				}
				if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() {
					size = math.Min(float64(fi.Size()), limit)
				}
			}
		}
	}
	c.shape = shape{size: size + scalarCost, n: size}
	c.bytes += c.size
	return c
}

// literalString returns the text of a string literal or of a template
// made of literal text only.
func literalString(x hclsyntax.Expression) (string, bool) {
	var parts []hclsyntax.Expression
	switch x := x.(type) {
	case *hclsyntax.LiteralValueExpr:
		parts = []hclsyntax.Expression{x}
	case *hclsyntax.TemplateExpr:
		parts = x.Parts
	default:
		return "", false
	}
	var b strings.Builder
	for _, p := range parts {
		lit, ok := p.(*hclsyntax.LiteralValueExpr)
		if !ok || lit.Val.Type() != cty.String || lit.Val.IsNull() {
			return "", false
		}
		b.WriteString(lit.Val.AsString())
	}
	return b.String(), true
}

// overBudget estimates x and returns a diagnostic at its range when its
// evaluation would go over the budget (or take the spec's total over);
// otherwise it adds its cost to spent.
func (e *estimator) overBudget(x hcl.Expression, spent *cost) *hcl.Diagnostic {
	sx, ok := x.(hclsyntax.Expression)
	if !ok {
		return nil
	}
	e.manyIters, e.manyBytes = nil, nil
	c := e.cost(sx)
	r := x.Range()
	over := func(what string) *hcl.Diagnostic {
		return &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Expression too large to evaluate", Detail: what, Subject: &r}
	}
	at := func(culprit *hcl.Range, d *hcl.Diagnostic) *hcl.Diagnostic {
		if culprit != nil && *culprit != r {
			d.Subject, d.Context = culprit, &r
		}
		return d
	}
	switch {
	case !(c.iters <= MaxEvalIterations):
		return at(e.manyIters, over(fmt.Sprintf("evaluating this expression would run up to %s iterations of its `for` expressions and `%%{ for }` directives (each body once per element, nested ones multiplied), more than the %d one expression may run; the spec is refused before it is evaluated", count(c.iters), MaxEvalIterations)))
	case !(c.bytes <= MaxEvalBytes):
		return at(e.manyBytes, over(fmt.Sprintf("evaluating this expression would build values of up to %s bytes, more than the %d one expression may build; the spec is refused before it is evaluated", count(c.bytes), MaxEvalBytes)))
	case spent.iters+c.iters > MaxSpecIterations:
		return over(fmt.Sprintf("with this expression the spec's expressions would run more than %d iterations of `for` expressions and `%%{ for }` directives together; the spec is refused before it is evaluated", MaxSpecIterations))
	case spent.bytes+c.bytes > MaxSpecEvalBytes:
		return over(fmt.Sprintf("with this expression the spec's expressions would build more than %d bytes of values together; the spec is refused before it is evaluated", MaxSpecEvalBytes))
	}
	spent.iters += c.iters
	spent.bytes += c.bytes
	return nil
}

// count renders an estimate as a whole number, or "more than 10^18".
func count(f float64) string {
	if f > 1e18 || math.IsInf(f, 0) || math.IsNaN(f) {
		return "more than 10^18"
	}
	return fmt.Sprintf("%.0f", f)
}

// joinElem is the shape of a collection's elements with one more element
// of shape s (elem nil: none yet).
func joinElem(elem *shape, s shape) *shape {
	if elem != nil {
		s = join(*elem, s)
	}
	return &s
}
