package main

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/childproof/childproof/envres"
	"github.com/childproof/childproof/outcome"
	"github.com/childproof/childproof/schema"
)

// writeFiles writes files (name: body, executable) into a temp dir.
func writeFiles(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, body := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// loadSpecLaunch loads launch name of dir/spec.hcl as lint does.
func loadSpecLaunch(t *testing.T, dir, name string) *schema.Launch {
	t.Helper()
	f, _, diags := schema.Load(filepath.Join(dir, "spec.hcl"), schema.LoadOptions{LookupEnv: func(string) (string, bool) { return "", false }, MissingProgramOK: true, LaunchesNothing: true})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	l, err := f.Launch(name)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// TestPlanRelaunchLint pins relaunch's lint decision, word for word:
// which env file each --set name is written into with --in-env-file and
// the notes it prints first, the usage errors (nothing to edit, a blocked
// file) and their hints, and a refusal's hint, which names --in-env-file
// for an editable target.
func TestPlanRelaunchLint(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"spec.hcl": `launch "job" {
  dispatch = ["dispatch.sh"]
}
launch "secret" {
  dispatch = ["dispatch.sh"]
  secret   = ["Y"]
}
launch "gen" {
  dispatch = ["gen.sh"]
}
launch "login" {
  dispatch = ["login.sh"]
}
launch "broken" {
  dispatch = ["broken.sh"]
}
`,
		"dispatch.sh": "#!/bin/bash\nset -a\n. ./.env\nset +a\nexec srv\n",
		".env":        "# c\nX=1\nY=2\n",
		"gen.sh":      "#!/bin/bash\nset -a\n. ./.env\nset +a\ngen > gen.env\nset -a\n. ./gen.env\nset +a\nexec srv\n",
		"gen.env":     "Y=1\n",
		"login.sh":    "#!/bin/bash\nset -a\n. ./.env\nset +a\nexec bash -lc srv\n",
		"broken.sh":   "#!/bin/bash\nif then\n",
	})
	env := filepath.Join(dir, ".env")
	type want struct {
		inEnvFile map[string]string
		notes     []string // noteText(note, dir), "warning: " before a warning's
		err       string   // "" for none
		hint      string
		kind      outcome.Kind
	}
	noLint := "fix the script, or launch anyway with --no-lint (verification on the worker still runs)"
	for _, c := range []struct {
		name   string
		launch string
		in     envres.RelaunchLint
		want   want
	}{
		{"no lint", "login", envres.RelaunchLint{Set: map[string]string{"X": "0"}, NoLint: true}, want{}},
		{"nothing refused", "job", envres.RelaunchLint{Set: map[string]string{"Z": "0"}}, want{}},
		{"refused, editable", "job", envres.RelaunchLint{Set: map[string]string{"X": "0", "Z": "0"}}, want{
			err:  "relaunch refused: the launch's dispatch chain has 1 lint error(s)",
			hint: "dispatch.sh:3 re-sources .env, which sets X (.env:2): add --in-env-file to write X into that file instead (the dispatcher keeps its re-source; --unset X puts the file back); or fix the script, or --no-lint",
			kind: outcome.Refused}},
		{"refused, nothing editable", "gen", envres.RelaunchLint{Set: map[string]string{"Y": "0"}}, want{
			err: "relaunch refused: the launch's dispatch chain has 2 lint error(s)", hint: noLint, kind: outcome.Refused}},
		{"in env file", "job", envres.RelaunchLint{Set: map[string]string{"X": "0", "Y": "0"}, InEnvFile: true}, want{
			inEnvFile: map[string]string{"X": env, "Y": env},
			notes: []string{
				"--in-env-file X: dispatch.sh:3 re-sources .env: writing X into it at line 2",
				"--in-env-file Y: dispatch.sh:3 re-sources .env: writing Y into it at line 3",
			}}},
		{"in env file, secret", "job", envres.RelaunchLint{Set: map[string]string{"X": "0", "Y": "0"}, Secret: []string{"X"}, InEnvFile: true}, want{
			inEnvFile: map[string]string{"X": env, "Y": env},
			notes: []string{
				"--in-env-file X: dispatch.sh:3 re-sources .env: writing X into it at line 2",
				"warning: --in-env-file X: X is secret: the value it replaces in .env:2 is not kept, so --unset X and --round N cannot restore it",
				"--in-env-file Y: dispatch.sh:3 re-sources .env: writing Y into it at line 3",
			}}},
		{"in env file, the spec's secret", "secret", envres.RelaunchLint{Set: map[string]string{"Y": "0"}, InEnvFile: true}, want{
			inEnvFile: map[string]string{"Y": env},
			notes: []string{
				"--in-env-file Y: dispatch.sh:3 re-sources .env: writing Y into it at line 3",
				"warning: --in-env-file Y: Y is secret: the value it replaces in .env:3 is not kept, so --unset Y and --round N cannot restore it",
			}}},
		{"in env file, still refused", "login", envres.RelaunchLint{Set: map[string]string{"X": "0"}, InEnvFile: true}, want{
			notes: []string{"--in-env-file X: login.sh:3 re-sources .env: writing X into it at line 2"},
			err:   "relaunch refused: the launch's dispatch chain has 1 lint error(s)", hint: noLint, kind: outcome.Refused}},
		{"in env file, no lint", "login", envres.RelaunchLint{Set: map[string]string{"X": "0"}, InEnvFile: true, NoLint: true}, want{
			inEnvFile: map[string]string{"X": env},
			notes:     []string{"--in-env-file X: login.sh:3 re-sources .env: writing X into it at line 2"}}},
		{"nothing to edit", "job", envres.RelaunchLint{Set: map[string]string{"Z": "0", "W": "1"}, InEnvFile: true}, want{
			err:  "--in-env-file: no env file of the dispatch chain clobbers W, Z: there is nothing to edit; nothing was stopped",
			hint: "drop --in-env-file: the --set value reaches the worker as an override", kind: outcome.Usage}},
		{"blocked", "gen", envres.RelaunchLint{Set: map[string]string{"X": "0", "Y": "0"}, InEnvFile: true}, want{
			notes: []string{"--in-env-file X: gen.sh:3 re-sources .env: writing X into it at line 2"},
			err:   "--in-env-file Y: the load at gen.sh:7 clobbers Y, but the chain writes gen.env itself (a generated file): an edit would be overwritten; nothing was edited or stopped",
			hint:  "fix the dispatch chain (see docs/crash-fix-rounds.md, \"A dispatcher that clobbers the mitigation\")", kind: outcome.Usage}},
		{"cannot lint", "broken", envres.RelaunchLint{Set: map[string]string{"X": "0"}, InEnvFile: true}, want{
			err: "broken.sh:2:1: `if` must be followed by a statement list", kind: outcome.Usage}},
	} {
		t.Run(c.name, func(t *testing.T) {
			c.in.WorkDir = dir
			plan, err := envres.PlanRelaunchLint(context.Background(), loadSpecLaunch(t, dir, c.launch), c.in)
			if plan == nil {
				t.Fatal("nil plan")
			}
			var got want
			got.inEnvFile = plan.InEnvFile
			for _, n := range plan.Notes {
				s := noteText(n, dir)
				if n.Warning() {
					s = "warning: " + s
				}
				got.notes = append(got.notes, s)
			}
			if err != nil {
				got.err, got.kind = err.Error(), outcome.Of(err)
				var re *envres.RefusedError
				var ee *envres.EnvFileEditError
				switch {
				case errors.As(err, &re):
					got.hint = refusedHint(re)
				case errors.As(err, &ee):
					got.err, got.hint = envFileEditText(ee)
				}
			}
			if d := cmp.Diff(c.want, got, cmp.AllowUnexported(want{})); d != "" {
				t.Errorf("plan (-want +got):\n%s", d)
			}
		})
	}
}

// TestRelaunchNoteText pins relaunch --in-env-file's words for each kind of note, with a line
// that the file does not assign yet (appended) and files relative to the
// working directory or as recorded.
func TestRelaunchNoteText(t *testing.T) {
	target := func(line int) envres.NamedTarget {
		return envres.NamedTarget{Name: "X", EnvFileTarget: envres.EnvFileTarget{File: "/srv/job/conf/job.env", Line: line, Site: envres.Pos{File: "scripts/dispatch.sh", Line: 6, Column: 3}}}
	}
	for _, c := range []struct {
		name    string
		note    envres.RelaunchNote
		wd      string
		want    string
		warning bool
	}{
		{"edit", envres.RelaunchNote{Target: target(4)}, "/srv/job",
			"--in-env-file X: scripts/dispatch.sh:6 re-sources conf/job.env: writing X into it at line 4", false},
		{"edit, as recorded", envres.RelaunchNote{Target: target(4)}, "",
			"--in-env-file X: scripts/dispatch.sh:6 re-sources /srv/job/conf/job.env: writing X into it at line 4", false},
		{"edit, appended", envres.RelaunchNote{Target: target(0)}, "/srv/job",
			"--in-env-file X: scripts/dispatch.sh:6 re-sources conf/job.env: writing X into it at a line appended at its end (it does not assign X itself)", false},
		{"secret", envres.RelaunchNote{Kind: envres.NoteSecretNotKept, Target: target(4)}, "/srv/job",
			"--in-env-file X: X is secret: the value it replaces in conf/job.env:4 is not kept, so --unset X and --round N cannot restore it", true},
		{"secret, appended", envres.RelaunchNote{Kind: envres.NoteSecretNotKept, Target: target(0)}, "/other",
			"--in-env-file X: X is secret: the value it replaces in /srv/job/conf/job.env is not kept, so --unset X and --round N cannot restore it", true},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := noteText(c.note, c.wd); got != c.want {
				t.Errorf("Text = %q\nwant   %q", got, c.want)
			}
			if got := c.note.Warning(); got != c.warning {
				t.Errorf("Warning = %v, want %v", got, c.warning)
			}
		})
	}
}
