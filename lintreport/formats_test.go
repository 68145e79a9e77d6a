package lintreport

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/xml"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/childproof/childproof/envres"
	"github.com/childproof/childproof/internal/testsupport/schemacheck"
)

var formatDiags = []Diagnostic{
	{Severity: "error", Summary: "Unsupported argument", Detail: "An argument named \"comand\"\nis not expected here.", File: "spec.hcl", Line: 2, Column: 3, EndLine: 2, EndColumn: 9},
	{Severity: "warning", Summary: "no range at all"},
}

// gccLine is the form vim's errorformat (%f:%l:%c: %t%*[^:]: %m) and VS
// Code's $gcc problem matcher read.
var gccLine = regexp.MustCompile(`^([^:]+|[^:]+:\d+:\d+): (error|warning): (.*) \[([a-z-]+)\]$`)

func TestGCCFormat(t *testing.T) {
	var b bytes.Buffer
	if err := Write(&b, "gcc", sample(), Options{Diagnostics: formatDiags}); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	want := []string{
		`spec.hcl:2:3: error: Unsupported argument: An argument named "comand" is not expected here. [spec]`,
		`childproof: warning: no range at all [spec]`,
		`scripts/dispatch.sh:3:9: error: clobbered, 100% sure: really [env-file-clobber]`,
		`naïve, dir/run:é.sh:2:12: warning: binds all [all-interfaces]`,
	}
	if d := cmp.Diff(want, lines); d != "" {
		t.Errorf("gcc output (-want +got):\n%s", d)
	}
	for _, l := range lines[:3] {
		if !gccLine.MatchString(l) {
			t.Errorf("not a gcc diagnostic line: %q", l)
		}
	}
	b.Reset()
	if err := Write(&b, "gcc", &envres.Result{}, Options{}); err != nil || b.Len() != 0 {
		t.Errorf("no findings: %q, %v", b.String(), err)
	}
}

// TestCheckstyleFormat round-trips the report through encoding/xml with
// checkstyle's element and attribute names (checkstyle's XMLLogger:
// checkstyle[@version] > file[@name] > error[@line @column @severity
// @message @source]) and checks that nothing else is written.
func TestCheckstyleFormat(t *testing.T) {
	var b bytes.Buffer
	if err := Write(&b, "checkstyle", sample(), Options{Diagnostics: formatDiags}); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(b.String(), `<?xml version="1.0" encoding="UTF-8"?>`) {
		t.Errorf("no XML declaration:\n%s", b.String())
	}
	var got Checkstyle
	if err := xml.Unmarshal(b.Bytes(), &got); err != nil {
		t.Fatalf("%v\n%s", err, b.String())
	}
	want := Checkstyle{XMLName: xml.Name{Local: "checkstyle"}, Version: "4.3", Files: []CheckstyleFile{
		{Name: "launch.sh"},
		{Name: "scripts/dispatch.sh", Errors: []CheckstyleError{{Line: 3, Column: 9, Severity: "error", Message: "clobbered, 100% sure:\nreally", Source: "childproof.env-file-clobber"}}},
		{Name: "naïve, dir/run:é.sh", Errors: []CheckstyleError{{Line: 2, Column: 8, Severity: "warning", Message: "binds all", Source: "childproof.all-interfaces"}}},
		{Name: "spec.hcl", Errors: []CheckstyleError{{Line: 2, Column: 3, Severity: "error", Message: "Unsupported argument: An argument named \"comand\"\nis not expected here.", Source: "childproof.spec"}}},
		{Name: "", Errors: []CheckstyleError{{Line: 1, Severity: "warning", Message: "no range at all", Source: "childproof.spec"}}},
	}}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("checkstyle (-want +got):\n%s", d)
	}
	// Only checkstyle's names, in its nesting.
	dec := xml.NewDecoder(bytes.NewReader(b.Bytes()))
	allowed := map[string][]string{"checkstyle": {"version"}, "file": {"name"}, "error": {"line", "column", "severity", "message", "source"}}
	parent := map[string]string{"checkstyle": "", "file": "checkstyle", "error": "file"}
	var stack []string
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		switch el := tok.(type) {
		case xml.StartElement:
			up := ""
			if len(stack) > 0 {
				up = stack[len(stack)-1]
			}
			attrs, ok := allowed[el.Name.Local]
			if !ok || parent[el.Name.Local] != up {
				t.Errorf("element %q inside %q is not checkstyle's", el.Name.Local, up)
			}
			for _, a := range el.Attr {
				if !strings.Contains(" "+strings.Join(attrs, " ")+" ", " "+a.Name.Local+" ") {
					t.Errorf("attribute %s of %s is not checkstyle's", a.Name.Local, el.Name.Local)
				}
			}
			if el.Name.Local == "error" {
				sev := ""
				for _, a := range el.Attr {
					if a.Name.Local == "severity" {
						sev = a.Value
					}
				}
				if sev != "error" && sev != "warning" && sev != "info" && sev != "ignore" {
					t.Errorf("severity %q is not one of checkstyle's", sev)
				}
			}
			stack = append(stack, el.Name.Local)
		case xml.EndElement:
			stack = stack[:len(stack)-1]
		}
	}
}

// TestRDJSONSchema validates every shape of rdjson output against
// reviewdog's own DiagnosticResult schema (copied into
// internal/testsupport/testdata with its source).
func TestRDJSONSchema(t *testing.T) {
	if err := schemacheck.CheckRDJSON([]byte(`{"diagnostics": [{"message": "m", "location": {"path": "a", "range": {"start": {"line": "one"}}}, "severity": "FATAL"}]}`)); err == nil {
		t.Fatal("the schema accepts a string line and an unknown severity: it checks nothing")
	}
	for name, tc := range map[string]struct {
		res  *envres.Result
		opts Options
	}{
		"empty":       {&envres.Result{}, Options{}},
		"findings":    {sample(), Options{}},
		"diagnostics": {&envres.Result{}, Options{Diagnostics: formatDiags}},
		"fix":         {fixSample(), Options{}},
	} {
		var b bytes.Buffer
		if err := Write(&b, "rdjson", tc.res, tc.opts); err != nil {
			t.Fatal(err)
		}
		t.Run(name, func(t *testing.T) {
			if err := schemacheck.CheckRDJSON(b.Bytes()); err != nil {
				t.Errorf("%v\n%s", err, b.Bytes())
			}
		})
	}
}

// fixSample is a clobber on a plain load line (a suggestion) and on lines
// where no edit is safe.
func fixSample() *envres.Result {
	src := "#!/bin/bash\nexport TOKEN=ovr\n  set -a; . ./.env; set +a\n. ./.env && exec ./srv\nwhile read -r l; do export \"$l\"; done \\\n  < .env\nexec ./srv\n"
	clobber := func(line, col int, inString bool) envres.Finding {
		return envres.Finding{Rule: "env-file-clobber", Severity: "error", Pos: envres.Pos{File: "run.sh", Line: line, Column: col},
			Message: "clobbered", Variables: []string{"TOKEN"}, InString: inString}
	}
	return &envres.Result{
		Findings: []envres.Finding{clobber(3, 11, false), clobber(3, 11, true), clobber(4, 1, false), clobber(6, 3, false)},
		Files:    []string{"run.sh", ".env"},
		Sources:  map[string][]byte{"run.sh": []byte(src)},
	}
}

type rdOut struct {
	Diagnostics []struct {
		Message     string `json:"message"`
		Severity    string `json:"severity"`
		Code        struct{ Value string }
		Suggestions []struct {
			Range struct {
				Start struct{ Line, Column int }
				End   struct{ Line, Column int }
			}
			Text string
		}
	}
}

// TestRDJSONSuggestion: only the plain load line gets a suggestion, and
// the suggestion, applied, makes the worker keep the launcher's value in
// real bash while the .env is still re-sourced.
func TestRDJSONSuggestion(t *testing.T) {
	res := fixSample()
	var b bytes.Buffer
	if err := Write(&b, "rdjson", res, Options{}); err != nil {
		t.Fatal(err)
	}
	var out rdOut
	if err := json.Unmarshal(b.Bytes(), &out); err != nil {
		t.Fatal(err)
	}
	var with []int
	for i, d := range out.Diagnostics {
		if len(d.Suggestions) > 0 {
			with = append(with, i)
		}
	}
	if !cmp.Equal(with, []int{0}) {
		t.Fatalf("suggestions on diagnostics %v, want only [0] (the plain load line):\n%s", with, b.String())
	}
	s := out.Diagnostics[0].Suggestions[0]
	if s.Range.Start.Line != 3 || s.Range.Start.Column != 1 || s.Range.End.Line != 4 || s.Range.End.Column != 1 {
		t.Errorf("range %+v, want the whole of line 3", s.Range)
	}
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("bash not installed")
	}
	lines := strings.SplitAfter(string(res.Sources["run.sh"]), "\n")
	fixed := strings.Join(lines[:2], "") + s.Text + "printf '%s|%s\\n' \"$TOKEN\" \"$OTHER\"\n"
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, ".env"), []byte("TOKEN=fromfile\nOTHER=loaded\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "run.sh"), []byte(fixed), 0o700); err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(context.Background(), bash, "--noprofile", "--norc", "run.sh")
	cmd.Dir = dir
	cmd.Env = []string{"PATH=" + os.Getenv("PATH")}
	got, err := cmd.Output()
	if err != nil {
		t.Fatalf("%v\n%s", err, fixed)
	}
	if string(got) != "ovr|loaded\n" {
		t.Errorf("fixed script's worker got %q, want the override kept and the file still loaded (ovr|loaded):\n%s", got, fixed)
	}
	// Nothing of the fix is left in the worker's environment.
	if strings.Contains(s.Text, "export _childproof") || !strings.Contains(s.Text, "unset _childproof_keep_TOKEN") {
		t.Errorf("the fix leaves its helper variable: %q", s.Text)
	}
}

// TestRDJSONReviewdog runs reviewdog itself on the output when it is
// installed (it is not a Debian package; go install
// github.com/reviewdog/reviewdog/cmd/reviewdog puts it on PATH).
func TestRDJSONReviewdog(t *testing.T) {
	rd, err := exec.LookPath("reviewdog")
	if err != nil {
		t.Skip("reviewdog not on PATH: the output is checked against its schema (TestRDJSONSchema) instead")
	}
	var b bytes.Buffer
	if err := Write(&b, "rdjson", sample(), Options{}); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(rd, "-f=rdjson", "-reporter=local", "-filter-mode=nofilter", "-fail-level=none")
	cmd.Stdin = &b
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("reviewdog: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "scripts/dispatch.sh:3:9") {
		t.Errorf("reviewdog did not report the finding:\n%s", out)
	}
}
