package schema

import (
	"fmt"
	"maps"
	"math/big"
	"slices"
	"strconv"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
)

var variableSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{{Name: "default"}, {Name: "description"}},
}

// variables decodes variable blocks and applies LoadOptions.Vars on top of
// their defaults. Every declared variable ends with a value or an error.
func (l *loader) variables(blocks []*hcl.Block) map[string]cty.Value {
	values := map[string]cty.Value{}
	defs := map[string]*hcl.Block{}
	defaults := map[string]cty.Value{}
	for _, b := range blocks {
		name := b.Labels[0]
		lr := b.LabelRanges[0]
		if !hclsyntax.ValidIdentifier(name) {
			l.errorf(&lr, "Invalid variable name", "%q is not a valid name: use letters, digits, _ and -, starting with a letter", name)
			continue
		}
		if prev, dup := defs[name]; dup {
			l.errorf(&lr, "Duplicate variable", "variable %q is already declared at %s", name, shortRange(prev.LabelRanges[0]))
			continue
		}
		defs[name] = b
		c, d := b.Body.Content(variableSchema)
		l.diags = append(l.diags, d...)
		if c == nil {
			continue
		}
		if a, ok := c.Attributes["description"]; ok {
			l.str(a)
		}
		if a, ok := c.Attributes["default"]; ok {
			if !l.affordable(a.Expr) {
				defaults[name] = cty.DynamicVal
				continue
			}
			v, d := a.Expr.Value(l.ctx)
			l.diags = append(l.diags, d...)
			if d.HasErrors() {
				defaults[name] = cty.DynamicVal
				continue
			}
			if !v.IsWhollyKnown() {
				r := a.Expr.Range()
				l.errorf(&r, "Invalid default", "the default of variable %q is not a known value", name)
				continue
			}
			defaults[name] = v
		}
	}
	for _, k := range slices.Sorted(maps.Keys(l.opts.Vars)) {
		raw := l.opts.Vars[k]
		if _, ok := defs[k]; !ok {
			v := &VarUndeclared{Name: k, Declared: slices.Sorted(maps.Keys(defs))}
			l.diags = append(l.diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Undeclared variable",
				Detail: v.Detail("LoadOptions.Vars[" + strconv.Quote(k) + "]"), Extra: v})
			continue
		}
		def, hasDef := defaults[k]
		values[k] = varValue(raw, hasDef && def.Type() == cty.String)
	}
	for _, name := range slices.Sorted(maps.Keys(defs)) {
		b := defs[name]
		if _, ok := values[name]; ok {
			continue
		}
		if def, ok := defaults[name]; ok {
			values[name] = def
			continue
		}
		r := b.DefRange
		v := &VarNeeded{Name: name}
		l.diags = append(l.diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "No value for variable",
			Detail: v.Detail("a value in LoadOptions.Vars"), Subject: &r, Extra: v})
		values[name] = cty.DynamicVal
	}
	return values
}

// varValue types a --var value: a number stays a number, true/false are
// bools, anything else is a string. keepString forces a string.
func varValue(raw string, keepString bool) cty.Value {
	if keepString {
		return cty.StringVal(raw)
	}
	switch raw {
	case "true":
		return cty.True
	case "false":
		return cty.False
	}
	if t := strings.TrimSpace(raw); t == raw && t != "" {
		if f, _, err := big.ParseFloat(raw, 10, 512, big.ToNearestEven); err == nil && isPlainNumber(raw) {
			return cty.NumberVal(f)
		}
	}
	return cty.StringVal(raw)
}

// isPlainNumber accepts decimal numbers as HCL writes them: an optional
// minus, digits, an optional fraction and exponent. No Inf, NaN, hex or _.
func isPlainNumber(s string) bool {
	i := 0
	if i < len(s) && s[i] == '-' {
		i++
	}
	digits := func() int {
		n := 0
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
			n++
		}
		return n
	}
	if digits() == 0 {
		return false
	}
	if i < len(s) && s[i] == '.' {
		i++
		if digits() == 0 {
			return false
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		if digits() == 0 {
			return false
		}
	}
	return i == len(s)
}

// VarNeeded is the Extra of the "No value for variable" diagnostic
// (hcl.DiagnosticExtra[*VarNeeded]): the variable Name has no default
// and LoadOptions.Vars gives it no value. A caller words the remedy in
// its own terms with Detail. It is safe for concurrent use while no one
// changes it.
type VarNeeded struct {
	// Name is the variable's name.
	Name string
}

// Detail is the diagnostic's detail with remedy saying what gives the
// variable a value.
func (v *VarNeeded) Detail(remedy string) string {
	return fmt.Sprintf("variable %q has no default; pass %s", v.Name, remedy)
}

// VarUndeclared is the Extra of the "Undeclared variable" diagnostic
// (hcl.DiagnosticExtra[*VarUndeclared]): LoadOptions.Vars sets Name,
// which the spec does not declare. It is safe for concurrent use while no
// one changes it.
type VarUndeclared struct {
	// Name is the variable LoadOptions.Vars sets.
	Name string
	// Declared are the variables the spec declares, sorted.
	Declared []string
}

// Detail is the diagnostic's detail with setting saying what set Name.
func (v *VarUndeclared) Detail(setting string) string {
	detail := setting + " sets a variable the spec does not declare"
	if len(v.Declared) > 0 {
		return detail + "; declared: " + strings.Join(v.Declared, ", ")
	}
	return detail + "; it declares none"
}
