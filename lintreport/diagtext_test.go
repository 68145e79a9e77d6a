package lintreport

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/hashicorp/hcl/v2"
)

// TestWriteDiagnostics: the text of a spec's diagnostics, byte for byte —
// the range's line with the range underlined, a multi-line range
// underlined to the end of its line, a detail on one line, a diagnostic
// without a range on one line, colour, and the cap.
func TestWriteDiagnostics(t *testing.T) {
	src := []byte("launch \"a\" {\n\tcomand = [\"é\", \"x\"]\n}\n")
	files := map[string]*hcl.File{"s.hcl": {Bytes: src}}
	unsupported := &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Unsupported argument", Detail: "Did you mean \"command\"?",
		Subject: &hcl.Range{Filename: "s.hcl", Start: hcl.Pos{Line: 2, Column: 2, Byte: 14}, End: hcl.Pos{Line: 2, Column: 8, Byte: 20}}}
	notFound := &hcl.Diagnostic{Severity: hcl.DiagWarning, Summary: "Program not found", Detail: "multi\nline",
		Subject: &hcl.Range{Filename: "s.hcl", Start: hcl.Pos{Line: 2, Column: 13}, End: hcl.Pos{Line: 3, Column: 2}}}
	cannotRead := &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Cannot read spec", Detail: "x.hcl: no such file or directory"}
	var many hcl.Diagnostics
	var manyWant strings.Builder
	for i := range MaxDiagnostics + 3 {
		many = append(many, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: fmt.Sprintf("Problem %d", i)})
		if i < MaxDiagnostics {
			fmt.Fprintf(&manyWant, "childproof: error: problem %d\n", i)
		}
	}
	manyWant.WriteString("childproof: … and 3 more diagnostics\n")
	tests := []struct {
		name  string
		files map[string]*hcl.File
		diags hcl.Diagnostics
		color bool
		want  string
	}{{
		name: "ranges, detail, no range", files: files,
		diags: hcl.Diagnostics{unsupported, notFound, cannotRead},
		want: `s.hcl:2:2: error: Unsupported argument
  2 |  comand = ["é", "x"]
    |  ^^^^^^
  Did you mean "command"?
s.hcl:2:13: warning: Program not found
  2 |  comand = ["é", "x"]
    |             ^^^^^^^^
  multi line
childproof: error: cannot read spec: x.hcl: no such file or directory
`,
	}, {
		name: "colour", files: files, color: true,
		diags: hcl.Diagnostics{unsupported, notFound, cannotRead},
		want: "s.hcl:2:2: \x1b[1;31merror\x1b[0m: Unsupported argument\n" +
			"  2 |  comand = [\"é\", \"x\"]\n" +
			"    |  \x1b[1;31m^^^^^^\x1b[0m\n" +
			"  Did you mean \"command\"?\n" +
			"s.hcl:2:13: \x1b[1;33mwarning\x1b[0m: Program not found\n" +
			"  2 |  comand = [\"é\", \"x\"]\n" +
			"    |             \x1b[1;33m^^^^^^^^\x1b[0m\n" +
			"  multi line\n" +
			"childproof: \x1b[1;31merror\x1b[0m: cannot read spec: x.hcl: no such file or directory\n",
	}, {
		name: "no source: place only", files: nil,
		diags: hcl.Diagnostics{unsupported},
		want:  "s.hcl:2:2: error: Unsupported argument\n  Did you mean \"command\"?\n",
	}, {
		name:  "acronym kept, summary on one line",
		diags: hcl.Diagnostics{{Severity: hcl.DiagWarning, Summary: "HCL\nproblem"}, {Severity: hcl.DiagError, Summary: "X"}},
		want:  "childproof: warning: HCL problem\nchildproof: error: x\n",
	}, {
		name: "capped", diags: many, want: manyWant.String(),
	}, {
		name: "none", want: "",
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var b bytes.Buffer
			WriteDiagnostics(&b, tc.files, tc.diags, tc.color)
			if diff := cmp.Diff(tc.want, b.String()); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// TestWriteDiagnosticsJSON: {"diagnostics":[…]}, an empty list for none.
func TestWriteDiagnosticsJSON(t *testing.T) {
	tests := []struct {
		name  string
		diags hcl.Diagnostics
		want  string
	}{
		{"none", nil, "{\n  \"diagnostics\": []\n}\n"},
		{"one with a range", hcl.Diagnostics{{Severity: hcl.DiagWarning, Summary: "Program <srv> not found", Detail: "d",
			Subject: &hcl.Range{Filename: "s.hcl", Start: hcl.Pos{Line: 2, Column: 13}, End: hcl.Pos{Line: 3, Column: 2}}}},
			`{
  "diagnostics": [
    {
      "rule": "spec",
      "severity": "warning",
      "summary": "Program <srv> not found",
      "detail": "d",
      "file": "s.hcl",
      "line": 2,
      "column": 13,
      "end_line": 3,
      "end_column": 2
    }
  ]
}
`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var b bytes.Buffer
			if err := WriteDiagnosticsJSON(&b, tc.diags); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, b.String()); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}
