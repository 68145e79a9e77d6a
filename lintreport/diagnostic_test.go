package lintreport

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/hashicorp/hcl/v2"

	"github.com/childproof/childproof/envres"
	"github.com/childproof/childproof/schema"
)

func TestFromHCL(t *testing.T) {
	rng := &hcl.Range{Filename: "spec.hcl", Start: hcl.Pos{Line: 3, Column: 5}, End: hcl.Pos{Line: 3, Column: 19}}
	tests := []struct {
		in   hcl.Diagnostics
		want []Diagnostic
	}{
		{nil, nil},
		{hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Cannot read spec", Detail: "x.hcl: no such file"}},
			[]Diagnostic{{Rule: SpecRule, Severity: envres.SeverityError, Summary: "Cannot read spec", Detail: "x.hcl: no such file"}}},
		{hcl.Diagnostics{{Severity: hcl.DiagWarning, Summary: "No-op alias", Detail: "HF_XET_DISABLE", Subject: rng, Extra: schema.NoopAlias{Name: "HF_XET_DISABLE", Real: "HF_HUB_DISABLE_XET"}}},
			[]Diagnostic{{Rule: "noop-alias", Severity: envres.SeverityWarning, Summary: "No-op alias", Detail: "HF_XET_DISABLE", File: "spec.hcl", Line: 3, Column: 5, EndLine: 3, EndColumn: 19}}},
	}
	for _, tc := range tests {
		if diff := cmp.Diff(tc.want, FromHCL(tc.in)); diff != "" {
			t.Errorf("FromHCL(%v) (-want +got):\n%s", tc.in, diff)
		}
	}
}
