package lintreport

import (
	"github.com/hashicorp/hcl/v2"

	"github.com/childproof/childproof/envres"
	"github.com/childproof/childproof/schema"
)

// Diagnostic is a problem of a spec (an HCL diagnostic) that `check`
// writes in every format next to the lint findings: SARIF and GitHub
// annotations carry its range, JSON lists it under "diagnostics". It is
// plain data, safe for concurrent use while no one changes it.
type Diagnostic struct {
	// Rule is the SARIF rule: "spec" for problems of the spec itself, or a
	// lint rule's name (a spec's no-op alias is "noop-alias").
	Rule     string          `json:"rule"`
	Severity envres.Severity `json:"severity"`
	Summary  string          `json:"summary"`
	Detail   string          `json:"detail,omitempty"`
	// File, Line and Column locate the start (1-based; columns count
	// characters, as HCL does); zero when the diagnostic has no range.
	File      string `json:"file,omitempty"`
	Line      int    `json:"line,omitempty"`
	Column    int    `json:"column,omitempty"`
	EndLine   int    `json:"end_line,omitempty"`
	EndColumn int    `json:"end_column,omitempty"`
}

// SpecRule is the SARIF rule of a spec problem that is no lint rule.
const SpecRule = "spec"

func (d Diagnostic) message() string {
	if d.Detail == "" {
		return d.Summary
	}
	return d.Summary + ": " + d.Detail
}

func (d Diagnostic) rule() string {
	if d.Rule == "" {
		return SpecRule
	}
	return d.Rule
}

// FromHCL converts a spec's HCL diagnostics: a no-op alias (Extra
// schema.NoopAlias) is the noop-alias rule, anything else SpecRule; the subject, when there is one,
// is the range. Nil for no diagnostics.
func FromHCL(diags hcl.Diagnostics) []Diagnostic {
	var out []Diagnostic
	for _, d := range diags {
		rd := Diagnostic{Rule: SpecRule, Severity: envres.SeverityError, Summary: d.Summary, Detail: d.Detail}
		if d.Severity == hcl.DiagWarning {
			rd.Severity = envres.SeverityWarning
		}
		if _, ok := hcl.DiagnosticExtra[schema.NoopAlias](d); ok {
			rd.Rule = envres.NoopAlias.Name
		}
		if r := d.Subject; r != nil {
			rd.File, rd.Line, rd.Column, rd.EndLine, rd.EndColumn = r.Filename, r.Start.Line, r.Start.Column, r.End.Line, r.End.Column
		}
		out = append(out, rd)
	}
	return out
}
