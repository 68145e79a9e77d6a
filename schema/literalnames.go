package schema

import (
	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
)

// nameAttrs are the launch attributes whose elements name something (a
// variable, a launch, a rule): they must be written literally.
var nameAttrs = map[string]bool{"inherit": true, "require": true, "secret": true, "depends_on": true,
	"forbid_wrappers": true, "volatile": true}

// secretCalls are the functions whose values are secret.
var secretCalls = map[string]bool{"env": true, "file": true}

// literalNames reports, by its range, every env() or file() call in a
// name position of attribute a: an element of a name list, or a key of
// env. A name built from a secret would be shown as a name in every
// diagnostic and output, so it is refused before it is evaluated
// (contract §6); the value is never read for the message.
func (l *loader) literalNames(a *hcl.Attribute) bool {
	var exprs []hcl.Expression
	if a.Name == "env" {
		if oc, ok := a.Expr.(*hclsyntax.ObjectConsExpr); ok {
			for _, it := range oc.Items {
				exprs = append(exprs, it.KeyExpr)
			}
		}
	} else {
		exprs = append(exprs, a.Expr)
	}
	ok := true
	for _, e := range exprs {
		se, isSyntax := e.(hclsyntax.Expression)
		if !isSyntax {
			continue
		}
		hclsyntax.VisitAll(se, func(n hclsyntax.Node) hcl.Diagnostics {
			if fc, is := n.(*hclsyntax.FunctionCallExpr); is && secretCalls[fc.Name] {
				ok = false
				what := "an element of " + a.Name
				if a.Name == "env" {
					what = "a key of env"
				}
				r := fc.Range()
				l.errorf(&r, "Secret in a name", "%s() here is %s, which names something and must be written literally: a value from %s() is secret and would be shown as a name; write the name itself", fc.Name, what, fc.Name)
			}
			return nil
		})
	}
	return ok
}
