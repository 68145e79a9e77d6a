package lintreport

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/childproof/childproof/envres"
	"github.com/childproof/childproof/internal/testsupport/schemacheck"
)

// TestSARIFSchema validates every shape of SARIF output the writer makes
// against the SARIF 2.1.0 schema.
func TestSARIFSchema(t *testing.T) {
	diags := []Diagnostic{
		{Severity: "error", Summary: "Unsupported argument", Detail: `An argument named "comand" is not expected here.`, File: "spec.hcl", Line: 2, Column: 3, EndLine: 2, EndColumn: 9},
		{Rule: "noop-alias", Severity: "warning", Summary: "No-op alias", File: "spec.hcl", Line: 5, Column: 5},
		{Severity: "error", Summary: "no range at all"},
	}
	for name, tc := range map[string]struct {
		res  *envres.Result
		opts Options
	}{
		"empty":        {&envres.Result{}, Options{}},
		"findings":     {sample(), Options{Dir: "/src/proj", ToolVersion: "v1.2.3"}},
		"diagnostics":  {&envres.Result{}, Options{Diagnostics: diags, ToolVersion: "(devel)"}},
		"both":         {sample(), Options{Diagnostics: diags}},
		"outside root": {&envres.Result{Findings: []envres.Finding{{Rule: "login-shell", Severity: "error", Pos: envres.Pos{File: "/elsewhere/x.sh", Line: 1, Column: 1}, Message: "m"}}}, Options{Dir: t.TempDir()}},
	} {
		var b bytes.Buffer
		if err := Write(&b, "sarif", tc.res, tc.opts); err != nil {
			t.Fatal(err)
		}
		t.Run(name, func(t *testing.T) {
			if err := schemacheck.CheckSARIF(b.Bytes()); err != nil {
				t.Errorf("SARIF output %v\n%s", err, b.Bytes())
			}
		})
	}
}

// sarifResults decodes the parts of the results the tests look at.
type sarifOut struct {
	Runs []struct {
		Base    map[string]struct{ URI string } `json:"originalUriBaseIds"`
		Results []struct {
			RuleID    string `json:"ruleId"`
			Level     string `json:"level"`
			Message   struct{ Text string }
			Finger    map[string]string `json:"partialFingerprints"`
			Locations []struct {
				Physical struct {
					Artifact struct {
						URI  string `json:"uri"`
						Base string `json:"uriBaseId"`
					} `json:"artifactLocation"`
					Region struct {
						StartLine, StartColumn, EndLine, EndColumn int
					} `json:"region"`
				} `json:"physicalLocation"`
			} `json:"locations"`
		} `json:"results"`
	} `json:"runs"`
}

func writeSARIFOut(t *testing.T, res *envres.Result, opts Options) sarifOut {
	t.Helper()
	var b bytes.Buffer
	if err := Write(&b, "sarif", res, opts); err != nil {
		t.Fatal(err)
	}
	var out sarifOut
	if err := json.Unmarshal(b.Bytes(), &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestSARIFRepoRelative: with --dir a subdirectory of a git work tree, the
// source root is the repository's root and a script outside --dir (but in
// the repository) is repository-relative, not an absolute file URI.
func TestSARIFRepoRelative(t *testing.T) {
	root := t.TempDir()
	for _, d := range []string{".git", "deploy", "scripts"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	res := &envres.Result{
		Findings: []envres.Finding{
			{Rule: "env-file-clobber", Severity: "error", Pos: envres.Pos{File: "run.sh", Line: 3, Column: 1}, Message: "m"},
			{Rule: "login-shell", Severity: "error", Pos: envres.Pos{File: filepath.Join(root, "scripts", "lib.sh"), Line: 1, Column: 1}, Message: "m"},
		},
		Files: []string{"run.sh", filepath.Join(root, "scripts", "lib.sh")},
	}
	out := writeSARIFOut(t, res, Options{Dir: filepath.Join(root, "deploy")})
	run := out.Runs[0]
	if got := run.Base["%SRCROOT%"].URI; got != "file://"+filepath.ToSlash(root)+"/" {
		t.Errorf("SRCROOT = %q, want the repository root", got)
	}
	var uris []string
	for _, r := range run.Results {
		a := r.Locations[0].Physical.Artifact
		if a.Base != "%SRCROOT%" {
			t.Errorf("%s: uriBaseId %q", a.URI, a.Base)
		}
		uris = append(uris, a.URI)
	}
	if strings.Join(uris, " ") != "deploy/run.sh scripts/lib.sh" {
		t.Errorf("uris = %v", uris)
	}
}

// TestSARIFFingerprints: a finding keeps its fingerprint when lines are
// added above it; two findings on identical lines differ.
func TestSARIFFingerprints(t *testing.T) {
	mk := func(prefix string, lines ...int) *envres.Result {
		src := prefix + "set -a; . ./.env; set +a\nset -a; . ./.env; set +a\n"
		res := &envres.Result{Sources: map[string][]byte{"run.sh": []byte(src)}}
		for _, l := range lines {
			res.Findings = append(res.Findings, envres.Finding{Rule: "env-file-clobber", Severity: "error", Pos: envres.Pos{File: "run.sh", Line: l, Column: 9}, Message: "m", Variables: []string{"X"}})
		}
		return res
	}
	a := writeSARIFOut(t, mk("#!/bin/bash\n", 2, 3), Options{Dir: t.TempDir()}).Runs[0].Results
	b := writeSARIFOut(t, mk("#!/bin/bash\n# a comment\n\n", 4, 5), Options{Dir: t.TempDir()}).Runs[0].Results
	fa0, fa1, fb0 := a[0].Finger[fingerprintKey], a[1].Finger[fingerprintKey], b[0].Finger[fingerprintKey]
	if fa0 == "" || fa0 != fb0 {
		t.Errorf("fingerprint moved with the line: %q vs %q", fa0, fb0)
	}
	if fa0 == fa1 {
		t.Errorf("two findings share a fingerprint: %q", fa0)
	}
}

// TestSARIFDiagnostics: a spec's diagnostics are results with their range.
func TestSARIFDiagnostics(t *testing.T) {
	out := writeSARIFOut(t, &envres.Result{}, Options{Diagnostics: []Diagnostic{
		{Severity: "error", Summary: "Unsupported argument", Detail: "did you mean command?", File: "spec.hcl", Line: 2, Column: 3, EndLine: 2, EndColumn: 9},
		{Rule: "noop-alias", Severity: "warning", Summary: "No-op alias", File: "spec.hcl", Line: 5, Column: 5, EndLine: 5, EndColumn: 19},
	}})
	rs := out.Runs[0].Results
	if len(rs) != 2 {
		t.Fatalf("%d results", len(rs))
	}
	if rs[0].RuleID != "spec" || rs[0].Level != "error" || rs[0].Message.Text != "Unsupported argument: did you mean command?" {
		t.Errorf("result 0: %+v", rs[0])
	}
	if r := rs[0].Locations[0].Physical.Region; r.StartLine != 2 || r.StartColumn != 3 || r.EndLine != 2 || r.EndColumn != 9 {
		t.Errorf("region: %+v", r)
	}
	if rs[1].RuleID != "noop-alias" || rs[1].Level != "warning" {
		t.Errorf("result 1: %+v", rs[1])
	}
}

func TestGitHubDiagnostics(t *testing.T) {
	var b bytes.Buffer
	if err := Write(&b, "github", &envres.Result{}, Options{Diagnostics: []Diagnostic{
		{Severity: "error", Summary: "Unsupported argument", Detail: "x", File: "spec.hcl", Line: 2, Column: 3, EndLine: 2, EndColumn: 9},
		{Severity: "error", Summary: "no range"},
	}}); err != nil {
		t.Fatal(err)
	}
	want := "::error file=spec.hcl,line=2,col=3,endLine=2,endColumn=9,title=childproof spec::Unsupported argument: x [spec]\n" +
		"::error title=childproof spec::no range [spec]\n"
	if b.String() != want {
		t.Errorf("github:\n%s\nwant\n%s", b.String(), want)
	}
}

// TestFileURI: an absolute path outside the source root is a file URI
// with three slashes, also for a Windows path with a drive letter.
func TestFileURI(t *testing.T) {
	for in, want := range map[string]string{
		"/work/a b/x.sh": "file:///work/a%20b/x.sh",
		"C:/work/x.sh":   "file:///C:/work/x.sh",
	} {
		if got := fileURI(in); got != want {
			t.Errorf("fileURI(%q) = %q, want %q", in, got, want)
		}
	}
}
