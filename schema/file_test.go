package schema

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/hashicorp/hcl/v2"
)

func TestConcerning(t *testing.T) {
	src := "variable \"v\" {\n  default = 1\n}\nlaunch \"a\" {\n  command = [\"/bin/true\"]\n}\nlaunch \"b\" {\n  command = [\"/bin/true\"]\n}\n"
	f, _, diags := Parse([]byte(src), "childproof.hcl", LoadOptions{LookupEnv: lookupFrom(nil), MissingProgramOK: true})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	a, b := f.Launches[0], f.Launches[1]
	in := func(l *Launch) *hcl.Range { r := HCLRange(l.Ranges.Block); return &r }
	inVar := &hcl.Range{Filename: "childproof.hcl", Start: hcl.Pos{Line: 2, Column: 3, Byte: 17}, End: hcl.Pos{Line: 2, Column: 10, Byte: 24}}
	otherFile := &hcl.Range{Filename: "other.hcl", Start: HCLRange(a.Ranges.Block).Start, End: HCLRange(a.Ranges.Block).End}
	warn := func(summary string, r *hcl.Range) *hcl.Diagnostic {
		return &hcl.Diagnostic{Severity: hcl.DiagWarning, Summary: summary, Subject: r}
	}
	all := hcl.Diagnostics{warn("in a", in(a)), warn("in b", in(b)), warn("in a variable", inVar), warn("no range", nil), warn("in another file", otherFile)}
	summaries := func(ds hcl.Diagnostics) []string {
		var out []string
		for _, d := range ds {
			out = append(out, d.Summary)
		}
		return out
	}
	for _, tc := range []struct {
		name     string
		selected []*Launch
		want     []string
	}{
		{"every launch", []*Launch{a, b}, []string{"in a", "in b", "in a variable", "no range", "in another file"}},
		{"a", []*Launch{a}, []string{"in a", "in a variable", "no range", "in another file"}},
		{"b", []*Launch{b}, []string{"in b", "in a variable", "no range", "in another file"}},
		{"none", nil, []string{"in a variable", "no range", "in another file"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, summaries(f.Concerning(all, tc.selected...))); diff != "" {
				t.Errorf("Concerning (-want +got):\n%s", diff)
			}
		})
	}
}
