package envres

import (
	"context"
	"errors"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/childproof/childproof/schema"
)

// loadLaunch loads dir/spec.hcl's launch name as check does (env() of an
// unset variable is an unknown value, a missing program a warning).
func loadLaunch(t *testing.T, dir, name string, env map[string]string) *schema.Launch {
	t.Helper()
	lookup := func(n string) (string, bool) { v, ok := env[n]; return v, ok }
	f, _, diags := schema.Load(filepath.Join(dir, "spec.hcl"), schema.LoadOptions{LookupEnv: lookup, MissingProgramOK: true, LaunchesNothing: true})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	l, err := f.Launch(name)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// launchFinding is a finding reduced to what TestLintLaunch compares.
type launchFinding struct {
	Rule, File string
	Line, Col  int
	Vars       []string
}

func TestLintLaunch(t *testing.T) {
	files := map[string]string{
		"spec.hcl": `launch "sudo" {
  dispatch = ["scripts/sudo.sh"]
  env = { API_KEY = "k" }
}
launch "sudo-allowed" {
  dispatch = ["scripts/sudo.sh"]
  env = { API_KEY = "k" }
  forbid_wrappers = ["login-shell", "interactive-shell"]
}
launch "login-command" {
  command = [
    "bash",
    "-lc",
    "./api",
  ]
  env = { API_KEY = "k" }
}
launch "clean-command" {
  command = ["./api", "--port", "8080"]
  env = { API_KEY = "k" }
}
launch "resource-override" {
  dispatch = ["scripts/resource.sh", "--arm", "2"]
  env = { API_KEY = "k" }
}
launch "resource-inherited" {
  dispatch = ["scripts/resource.sh"]
  inherit = ["PATH", "API_KEY"]
  require = ["API_KEY"]
}
launch "resource-unpassed" {
  dispatch = ["scripts/resource.sh"]
  inherit = ["PATH"]
}
launch "resource-unknown" {
  dispatch = ["scripts/resource.sh"]
  env = { API_KEY = env("CALLER_KEY") }
}
`,
		"scripts/sudo.sh":     "#!/bin/bash\nexec sudo -u app ./api\n",
		"scripts/resource.sh": "#!/bin/bash -l\nset -a\n. ./.env\nset +a\nexec ./api\n",
		".env":                "API_KEY=from-the-file\n",
	}
	dir := writeTree(t, files)
	spec := filepath.Join(dir, "spec.hcl")
	tests := []struct {
		launch string
		want   []launchFinding
		files  []string
	}{
		// The default forbids every wrapper: sudo before the worker.
		{"sudo", []launchFinding{{Rule: "env-reset", File: "scripts/sudo.sh", Line: 2, Col: 6, Vars: []string{"API_KEY"}}}, []string{"scripts/sudo.sh"}},
		// forbid_wrappers leaves env-reset out: the spec allows sudo.
		{"sudo-allowed", nil, []string{"scripts/sudo.sh"}},
		// A command's finding points at its element in the spec (the
		// "bash" line), whose path becomes absolute.
		{"login-command", []launchFinding{{Rule: "login-shell", File: spec, Line: 12, Col: 5}}, []string{spec}},
		// A command with nothing to say leaves no "<command>" file.
		{"clean-command", nil, []string{}},
		// The dispatch runs as bash --noprofile --norc SCRIPT: its
		// shebang's -l does not apply; the env file clobbers the override.
		{"resource-override", []launchFinding{{Rule: "env-file-clobber", File: "scripts/resource.sh", Line: 3, Col: 1, Vars: []string{"API_KEY"}}}, []string{"scripts/resource.sh", ".env"}},
		// A required name passed from the caller is protected too.
		{"resource-inherited", []launchFinding{{Rule: "env-file-clobber", File: "scripts/resource.sh", Line: 3, Col: 1, Vars: []string{"API_KEY"}}}, []string{"scripts/resource.sh", ".env"}},
		// Not passed, not required: nothing to protect, so the env
		// file's load is a warning, not a clobber.
		{"resource-unpassed", []launchFinding{{Rule: "env-file-load", File: "scripts/resource.sh", Line: 3, Col: 1, Vars: []string{"API_KEY"}}}, []string{"scripts/resource.sh", ".env"}},
		// env() of an unset variable: an override of unknown value.
		{"resource-unknown", []launchFinding{{Rule: "env-file-clobber", File: "scripts/resource.sh", Line: 3, Col: 1, Vars: []string{"API_KEY"}}}, []string{"scripts/resource.sh", ".env"}},
	}
	for _, tc := range tests {
		t.Run(tc.launch, func(t *testing.T) {
			res, err := LintLaunch(context.Background(), loadLaunch(t, dir, tc.launch, nil))
			if err != nil {
				t.Fatal(err)
			}
			var got []launchFinding
			for _, f := range res.Findings {
				got = append(got, launchFinding{Rule: f.Rule, File: f.File, Line: f.Line, Col: f.Column, Vars: f.Variables})
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("findings (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.files, res.Files); diff != "" {
				t.Errorf("files (-want +got):\n%s", diff)
			}
			if _, ok := res.Sources[CommandFile]; ok {
				t.Errorf("Sources still holds %s", CommandFile)
			}
		})
	}
}

func TestLintLaunchParseError(t *testing.T) {
	dir := writeTree(t, map[string]string{
		"spec.hcl":  "launch \"a\" {\n  dispatch = [\"broken.sh\"]\n}\n",
		"broken.sh": "#!/bin/bash\nif then\n",
	})
	_, err := LintLaunch(context.Background(), loadLaunch(t, dir, "a", nil))
	var pe *ParseError
	if !errors.As(err, &pe) {
		t.Fatalf("err = %v, want a *ParseError", err)
	}
	if pe.Line != 2 {
		t.Errorf("parse error at line %d, want 2", pe.Line)
	}
}

func TestMergeAndCount(t *testing.T) {
	a := &Result{Files: []string{"a.sh", "b.sh"}, Findings: []Finding{
		{Rule: "r2", Severity: SeverityWarning, Pos: Pos{File: "b.sh", Line: 1, Column: 1}, Message: "m"},
		{Rule: "r1", Severity: SeverityError, Pos: Pos{File: "a.sh", Line: 4, Column: 2}, Message: "m"},
	}, Sources: map[string][]byte{"a.sh": []byte("first")}}
	b := &Result{Files: []string{"b.sh", "c.sh"}, Findings: []Finding{
		{Rule: "r2", Severity: SeverityWarning, Pos: Pos{File: "b.sh", Line: 1, Column: 1}, Message: "m"},
		{Rule: "r1", Severity: SeverityError, Pos: Pos{File: "a.sh", Line: 1, Column: 2}, Message: "m"},
	}, Sources: map[string][]byte{"a.sh": []byte("second"), "c.sh": []byte("c")}}
	got := Merge(a, nil, b)
	want := &Result{Files: []string{"a.sh", "b.sh", "c.sh"}, Findings: []Finding{
		{Rule: "r1", Severity: SeverityError, Pos: Pos{File: "a.sh", Line: 1, Column: 2}, Message: "m"},
		{Rule: "r1", Severity: SeverityError, Pos: Pos{File: "a.sh", Line: 4, Column: 2}, Message: "m"},
		{Rule: "r2", Severity: SeverityWarning, Pos: Pos{File: "b.sh", Line: 1, Column: 1}, Message: "m"},
	}, Sources: map[string][]byte{"a.sh": []byte("first"), "c.sh": []byte("c")}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Merge (-want +got):\n%s", diff)
	}
	for _, tc := range []struct {
		res         *Result
		errs, warns int
	}{{nil, 0, 0}, {&Result{}, 0, 0}, {got, 2, 1}} {
		if e, w := tc.res.Count(); e != tc.errs || w != tc.warns {
			t.Errorf("Count() = %d, %d, want %d, %d", e, w, tc.errs, tc.warns)
		}
	}
	if diff := cmp.Diff(&Result{Findings: []Finding{}, Files: []string{}}, Merge()); diff != "" {
		t.Errorf("Merge() (-want +got):\n%s", diff)
	}
}
