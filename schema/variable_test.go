package schema

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/hashicorp/hcl/v2"
)

// TestVarDiagnostics checks that a variable's diagnostics speak Go
// (LoadOptions.Vars) and carry their fields as Extra, for a caller that
// words its own remedy.
func TestVarDiagnostics(t *testing.T) {
	src := []byte("variable \"port\" {}\nlaunch \"api\" {\n  command = [\"/bin/sleep\", \"${var.port}\"]\n}\n")
	for _, tc := range []struct {
		vars   map[string]string
		detail string
		extra  any
	}{
		{nil, `variable "port" has no default; pass a value in LoadOptions.Vars`, &VarNeeded{Name: "port"}},
		{map[string]string{"port": "1", "x": "2"}, `LoadOptions.Vars["x"] sets a variable the spec does not declare; declared: port`, &VarUndeclared{Name: "x", Declared: []string{"port"}}},
	} {
		_, _, diags := Parse(src, "spec.hcl", LoadOptions{Vars: tc.vars, MissingProgramOK: true})
		var got []*hcl.Diagnostic
		for _, d := range diags {
			if d.Summary == "No value for variable" || d.Summary == "Undeclared variable" {
				got = append(got, d)
			}
		}
		if len(got) != 1 {
			t.Fatalf("%v: diagnostics %v, want one of the variable", tc.vars, diags)
		}
		if diff := cmp.Diff(tc.detail, got[0].Detail); diff != "" {
			t.Errorf("%v: detail (-want +got):\n%s", tc.vars, diff)
		}
		if diff := cmp.Diff(tc.extra, got[0].Extra); diff != "" {
			t.Errorf("%v: extra (-want +got):\n%s", tc.vars, diff)
		}
	}
}
