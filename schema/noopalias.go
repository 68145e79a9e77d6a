package schema

import (
	"fmt"

	"github.com/hashicorp/hcl/v2"
)

// NoopAlias is the Extra of the spec warning about a known no-op alias
// (read it with hcl.DiagnosticExtra[NoopAlias]): the launch sets or
// requires Name, which does nothing; Real is the variable that takes
// effect. lintreport reports such a warning as the noop-alias rule. It is
// plain data, safe for concurrent use while no one changes it.
type NoopAlias struct{ Name, Real string }

// noopAlias adds the no-op alias warning at rng; what is the sentence
// of what the launch does with the alias.
func (l *loader) noopAlias(rng *hcl.Range, name, real, what string) {
	l.diags = append(l.diags, &hcl.Diagnostic{Severity: hcl.DiagWarning, Summary: "No-op alias",
		Detail:  fmt.Sprintf("%s is a known no-op alias: %s; the variable that takes effect is %s", name, what, real),
		Subject: rng, Extra: NoopAlias{Name: name, Real: real}})
}
