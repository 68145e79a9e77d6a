package schema

import (
	"fmt"
	"github.com/childproof/childproof/internal/specrule"
	"math"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"
)

// eval evaluates an attribute and converts it to ty. ok is false when the
// attribute is null (treated as not written) or wrong; wrong values add a
// diagnostic at the expression. secret lists the paths inside the value
// that came from env() or file().
func (l *loader) eval(a *hcl.Attribute, ty cty.Type) (v cty.Value, secret []cty.Path, ok bool) {
	if !l.affordable(a.Expr) {
		return cty.NilVal, nil, false
	}
	raw, d := a.Expr.Value(l.ctx)
	l.diags = append(l.diags, d...)
	if d.HasErrors() {
		return cty.NilVal, nil, false
	}
	r := a.Expr.Range()
	if !raw.IsWhollyKnown() && l.lenient {
		raw = l.settleUnknown(a.Expr, raw)
	}
	if !raw.IsWhollyKnown() {
		l.errorf(&r, "Unknown value", "the value of %q is not known when the spec is read", a.Name)
		return cty.NilVal, nil, false
	}
	raw, pvm := raw.UnmarkDeepWithPaths()
	for _, p := range pvm {
		if _, ok := markName(p.Marks); ok {
			secret = append(secret, p.Path)
		}
	}
	l.noteSecret(a.Expr, secret)
	if raw.IsNull() {
		return cty.NilVal, nil, false
	}
	cv, err := convert.Convert(raw, ty)
	if err != nil {
		l.errorf(&r, "Incorrect attribute value type", "Inappropriate value for attribute %q: %s.", a.Name, convertMessage(err, ty))
		return cty.NilVal, nil, false
	}
	if ty.IsListType() || ty.IsMapType() {
		for it := cv.ElementIterator(); it.Next(); {
			k, e := it.Element()
			if e.IsNull() {
				what := "element"
				if ty.IsMapType() {
					what = "key " + k.AsString()
				} else {
					what = "element " + k.AsBigFloat().String()
				}
				l.errorf(&r, "Invalid value", "%s of %q is null; it needs a string", what, a.Name)
				return cty.NilVal, nil, false
			}
		}
	}
	return cv, secret, true
}

func convertMessage(err error, ty cty.Type) string {
	msg := err.Error()
	switch {
	case ty == cty.String:
		return "a string is required"
	case ty == cty.Number:
		return "a number is required"
	case ty == cty.Bool:
		return "a bool (true or false) is required"
	case ty.IsListType():
		return collectionMessage("a list of strings is required, like [\"a\", \"b\"]", msg)
	case ty.IsMapType():
		return collectionMessage("a map of strings is required, like { NAME = \"value\" }", msg)
	}
	return msg
}

// collectionMessage is want with what cty's conversion error adds to it: the
// type the value has when the whole value is of another kind ("list of
// string required, but have string" says want again), else the element at
// fault ("element 1: string required").
func collectionMessage(want, msg string) string {
	if strings.Contains(msg, ":") {
		return want + "; " + msg
	}
	if _, have, ok := strings.Cut(msg, "required, but have "); ok {
		article := "a "
		if strings.ContainsRune("aeiou", rune(have[0])) {
			article = "an "
		}
		return want + ", not " + article + have
	}
	return want
}

// str decodes a string attribute.
func (l *loader) str(a *hcl.Attribute) (string, bool) {
	v, _, ok := l.eval(a, cty.String)
	if !ok {
		return "", false
	}
	return v.AsString(), true
}

// strSecret decodes a string attribute and reports whether it came from
// env() or file().
func (l *loader) strSecret(a *hcl.Attribute) (string, bool, bool) {
	v, secret, ok := l.eval(a, cty.String)
	if !ok {
		return "", false, false
	}
	return v.AsString(), len(secret) > 0, true
}

// strList decodes a list of strings; secret holds the indexes of elements
// that came from env() or file() (all of them when the whole list did).
func (l *loader) strList(a *hcl.Attribute) (out []string, secret map[int]bool, ok bool) {
	v, paths, ok := l.eval(a, cty.List(cty.String))
	if !ok {
		return nil, nil, false
	}
	out = []string{}
	for it := v.ElementIterator(); it.Next(); {
		_, e := it.Element()
		out = append(out, e.AsString())
	}
	secret = map[int]bool{}
	for _, p := range paths {
		if len(p) == 0 {
			for i := range out {
				secret[i] = true
			}
			continue
		}
		if ix, ok := p[0].(cty.IndexStep); ok && ix.Key.Type() == cty.Number {
			if i, acc := ix.Key.AsBigFloat().Int64(); acc == 0 && i >= 0 {
				secret[int(i)] = true
			}
		}
	}
	return out, secret, true
}

// strMap decodes a map of strings; secret holds the keys whose values
// came from env() or file() (all of them when the whole map did).
func (l *loader) strMap(a *hcl.Attribute) (out map[string]string, secret map[string]bool, ok bool) {
	v, paths, ok := l.eval(a, cty.Map(cty.String))
	if !ok {
		return nil, nil, false
	}
	out = map[string]string{}
	for k, e := range v.AsValueMap() {
		out[k] = e.AsString()
	}
	secret = map[string]bool{}
	for _, p := range paths {
		if len(p) == 0 {
			for k := range out {
				secret[k] = true
			}
			continue
		}
		// An object literal's attributes are GetAttr steps; a map's are
		// Index steps.
		switch st := p[0].(type) {
		case cty.GetAttrStep:
			secret[st.Name] = true
		case cty.IndexStep:
			if st.Key.Type() == cty.String {
				secret[st.Key.AsString()] = true
			}
		}
	}
	return out, secret, true
}

// integer decodes a whole number. Values beyond the int32 range are
// clamped so that range checks still report them as out of range.
func (l *loader) integer(a *hcl.Attribute) (int, bool) {
	v, _, ok := l.eval(a, cty.Number)
	if !ok {
		return 0, false
	}
	bf := v.AsBigFloat()
	r := a.Expr.Range()
	if !bf.IsInt() {
		got := bf.Text('g', 10)
		if l.hiddenAt(r) {
			got = hiddenValue{r}.String()
		}
		l.errorf(&r, "Invalid value", "%q must be a whole number, got %s", a.Name, got)
		return 0, false
	}
	i, _ := bf.Int64()
	if i > math.MaxInt32 {
		i = math.MaxInt32
	}
	if i < math.MinInt32 {
		i = math.MinInt32
	}
	return int(i), true
}

// boolean decodes a bool.
func (l *loader) boolean(a *hcl.Attribute) (bool, bool) {
	v, _, ok := l.eval(a, cty.Bool)
	if !ok {
		return false, false
	}
	return v.True(), true
}

// elementRanges returns the ranges of a static list's elements, or nil.
func elementRanges(e hcl.Expression) []hcl.Range {
	exprs, d := hcl.ExprList(e)
	if d.HasErrors() {
		return nil
	}
	out := make([]hcl.Range, len(exprs))
	for i, x := range exprs {
		out[i] = x.Range()
	}
	return out
}

// keyRanges returns the ranges of a static object's keys by key name.
func (l *loader) keyRanges(e hcl.Expression) map[string]hcl.Range {
	pairs, d := hcl.ExprMap(e)
	if d.HasErrors() {
		return nil
	}
	out := map[string]hcl.Range{}
	for _, p := range pairs {
		k, d := p.Key.Value(nil)
		if d.HasErrors() || !k.IsKnown() || k.IsNull() {
			// A key like var.x needs the context.
			k, d = p.Key.Value(l.ctx)
			if d.HasErrors() || !k.IsWhollyKnown() || k.IsNull() {
				continue
			}
		}
		k, _ = k.UnmarkDeep()
		ks, err := convert.Convert(k, cty.String)
		if err != nil {
			continue
		}
		out[ks.AsString()] = p.Key.Range()
	}
	return out
}

// ns joins namespace parts: ns("port", 0, "number") = "port[0].number".
func ns(parts ...any) string { return specrule.NS(parts...) }

// noteSecret remembers which parts of an attribute's value came from env()
// or file() (secret, by their paths in the value): the whole expression,
// list elements and map entries, by source range. Diagnostics about those
// parts name the range, never the value (see hiddenAt).
func (l *loader) noteSecret(e hcl.Expression, secret []cty.Path) {
	if len(secret) == 0 {
		return
	}
	if l.sensitive == nil {
		l.sensitive = map[hcl.Range]bool{}
	}
	elems := elementRanges(e)
	var keys map[string]hcl.Range
	for _, p := range secret {
		if len(p) == 0 {
			l.sensitive[e.Range()] = true
			continue
		}
		if ga, ok := p[0].(cty.GetAttrStep); ok {
			if keys == nil {
				keys = l.keyRanges(e)
			}
			if r, ok := keys[ga.Name]; ok {
				l.sensitive[r] = true
				continue
			}
		}
		ix, ok := p[0].(cty.IndexStep)
		if !ok {
			l.sensitive[e.Range()] = true
			continue
		}
		switch ix.Key.Type() {
		case cty.Number:
			if i, acc := ix.Key.AsBigFloat().Int64(); acc == 0 && i >= 0 && int(i) < len(elems) {
				l.sensitive[elems[i]] = true
				continue
			}
		case cty.String:
			if keys == nil {
				keys = l.keyRanges(e)
			}
			if r, ok := keys[ix.Key.AsString()]; ok {
				l.sensitive[r] = true
				continue
			}
		}
		l.sensitive[e.Range()] = true
	}
}

// hiddenAt reports whether the value written at r came from env() or
// file().
func (l *loader) hiddenAt(r hcl.Range) bool { return l.sensitive[r] }

// hiddenValue stands for a secret value in a diagnostic: it names where
// the value is written, never the value. It prints the same for %v, %s
// and %q.
type hiddenValue struct{ at hcl.Range }

func (h hiddenValue) String() string {
	return fmt.Sprintf("(the value from env() or file() at %s, not shown)", shortRange(h.at))
}

func (h hiddenValue) Format(f fmt.State, verb rune) { fmt.Fprint(f, h.String()) }

// settleUnknown replaces each unknown string in v (an unset env() with
// LaunchesNothing) by "" and remembers its source range (the whole
// expression, or the list element or map key that holds it) as unknown.
// Unknowns of other types stay: a number or bool from an unset env() is
// still an error.
func (l *loader) settleUnknown(e hcl.Expression, v cty.Value) cty.Value {
	if l.unknown == nil {
		l.unknown = map[hcl.Range]bool{}
	}
	var elems []hcl.Range
	var keys map[string]hcl.Range
	out, _ := cty.Transform(v, func(p cty.Path, v cty.Value) (cty.Value, error) {
		if v.IsKnown() || !v.Type().Equals(cty.String) {
			return v, nil
		}
		r := e.Range()
		if len(p) > 0 {
			if ga, ok := p[0].(cty.GetAttrStep); ok {
				if keys == nil {
					keys = l.keyRanges(e)
				}
				if kr, ok := keys[ga.Name]; ok {
					r = kr
				}
			}
			if ix, ok := p[0].(cty.IndexStep); ok {
				switch ix.Key.Type() {
				case cty.Number:
					if elems == nil {
						elems = elementRanges(e)
					}
					if i, acc := ix.Key.AsBigFloat().Int64(); acc == 0 && i >= 0 && int(i) < len(elems) {
						r = elems[i]
					}
				case cty.String:
					if keys == nil {
						keys = l.keyRanges(e)
					}
					if kr, ok := keys[ix.Key.AsString()]; ok {
						r = kr
					}
				}
			}
		}
		l.unknown[r] = true
		_, marks := v.Unmark()
		return cty.StringVal("").WithMarks(marks), nil
	})
	return out
}

// unknownAt reports whether the value written at r is an unset env().
func (l *loader) unknownAt(r hcl.Range) bool { return l.unknown[r] }
