package envres

import (
	"context"
	"errors"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/childproof/childproof/outcome"
)

// TestPlanRelaunchLint pins relaunch's lint decision, word for word:
// which env file each --set name is written into with --in-env-file and
// the notes it prints first, the usage errors (nothing to edit, a blocked
// file) and their hints, and a refusal's hint, which names --in-env-file
// for an editable target.
func TestPlanRelaunchLint(t *testing.T) {
	dir := writeTree(t, map[string]string{
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
	edit := func(n string, line int) RelaunchNote {
		return RelaunchNote{Kind: NoteEnvFileEdit, Target: NamedTarget{Name: n, EnvFileTarget: EnvFileTarget{File: env, Line: line, Site: Pos{File: "dispatch.sh", Line: 3}}}}
	}
	type want struct {
		inEnvFile map[string]string
		notes     []string // RelaunchNote.Text(dir), "warning: " before a warning's
		err       string   // "" for none
		hint      string
		kind      outcome.Kind
	}
	noLint := "fix the script, or launch anyway with --no-lint (verification on the worker still runs)"
	for _, c := range []struct {
		name   string
		launch string
		in     RelaunchLint
		want   want
	}{
		{"no lint", "login", RelaunchLint{Set: map[string]string{"X": "0"}, NoLint: true}, want{}},
		{"nothing refused", "job", RelaunchLint{Set: map[string]string{"Z": "0"}}, want{}},
		{"refused, editable", "job", RelaunchLint{Set: map[string]string{"X": "0", "Z": "0"}}, want{
			err:  "relaunch refused: the launch's dispatch chain has 1 lint error(s)",
			hint: "dispatch.sh:3 re-sources .env, which sets X (.env:2): add --in-env-file to write X into that file instead (the dispatcher keeps its re-source; --unset X puts the file back); or fix the script, or --no-lint",
			kind: outcome.Refused}},
		{"refused, nothing editable", "gen", RelaunchLint{Set: map[string]string{"Y": "0"}}, want{
			err: "relaunch refused: the launch's dispatch chain has 2 lint error(s)", hint: noLint, kind: outcome.Refused}},
		{"in env file", "job", RelaunchLint{Set: map[string]string{"X": "0", "Y": "0"}, InEnvFile: true}, want{
			inEnvFile: map[string]string{"X": env, "Y": env},
			notes: []string{
				"--in-env-file X: dispatch.sh:3 re-sources .env: writing X into it at line 2",
				"--in-env-file Y: dispatch.sh:3 re-sources .env: writing Y into it at line 3",
			}}},
		{"in env file, secret", "job", RelaunchLint{Set: map[string]string{"X": "0", "Y": "0"}, Secret: []string{"X"}, InEnvFile: true}, want{
			inEnvFile: map[string]string{"X": env, "Y": env},
			notes: []string{
				"--in-env-file X: dispatch.sh:3 re-sources .env: writing X into it at line 2",
				"warning: --in-env-file X: X is secret: the value it replaces in .env:2 is not kept, so --unset X and --round N cannot restore it",
				"--in-env-file Y: dispatch.sh:3 re-sources .env: writing Y into it at line 3",
			}}},
		{"in env file, the spec's secret", "secret", RelaunchLint{Set: map[string]string{"Y": "0"}, InEnvFile: true}, want{
			inEnvFile: map[string]string{"Y": env},
			notes: []string{
				"--in-env-file Y: dispatch.sh:3 re-sources .env: writing Y into it at line 3",
				"warning: --in-env-file Y: Y is secret: the value it replaces in .env:3 is not kept, so --unset Y and --round N cannot restore it",
			}}},
		{"in env file, still refused", "login", RelaunchLint{Set: map[string]string{"X": "0"}, InEnvFile: true}, want{
			notes: []string{"--in-env-file X: login.sh:3 re-sources .env: writing X into it at line 2"},
			err:   "relaunch refused: the launch's dispatch chain has 1 lint error(s)", hint: noLint, kind: outcome.Refused}},
		{"in env file, no lint", "login", RelaunchLint{Set: map[string]string{"X": "0"}, InEnvFile: true, NoLint: true}, want{
			inEnvFile: map[string]string{"X": env},
			notes:     []string{"--in-env-file X: login.sh:3 re-sources .env: writing X into it at line 2"}}},
		{"nothing to edit", "job", RelaunchLint{Set: map[string]string{"Z": "0", "W": "1"}, InEnvFile: true}, want{
			err:  "--in-env-file: no env file of the dispatch chain clobbers W, Z: there is nothing to edit; nothing was stopped",
			hint: "drop --in-env-file: the --set value reaches the worker as an override", kind: outcome.Usage}},
		{"blocked", "gen", RelaunchLint{Set: map[string]string{"X": "0", "Y": "0"}, InEnvFile: true}, want{
			notes: []string{"--in-env-file X: gen.sh:3 re-sources .env: writing X into it at line 2"},
			err:   "--in-env-file Y: the load at gen.sh:7 clobbers Y, but the chain writes gen.env itself (a generated file): an edit would be overwritten; nothing was edited or stopped",
			hint:  "fix the dispatch chain (see docs/crash-fix-rounds.md, \"A dispatcher that clobbers the mitigation\")", kind: outcome.Usage}},
		{"cannot lint", "broken", RelaunchLint{Set: map[string]string{"X": "0"}, InEnvFile: true}, want{
			err: "broken.sh:2:1: `if` must be followed by a statement list", kind: outcome.Usage}},
	} {
		t.Run(c.name, func(t *testing.T) {
			c.in.WorkDir = dir
			plan, err := PlanRelaunchLint(context.Background(), loadLaunch(t, dir, c.launch, nil), c.in)
			if plan == nil {
				t.Fatal("nil plan")
			}
			var got want
			got.inEnvFile = plan.InEnvFile
			for _, n := range plan.Notes {
				s := n.Text(dir)
				if n.Warning() {
					s = "warning: " + s
				}
				got.notes = append(got.notes, s)
			}
			if err != nil {
				got.err, got.kind = err.Error(), outcome.Of(err)
				if h, ok := err.(interface{ Hint() string }); ok {
					got.hint = h.Hint()
				}
			}
			if d := cmp.Diff(c.want, got, cmp.AllowUnexported(want{})); d != "" {
				t.Errorf("plan (-want +got):\n%s", d)
			}
		})
	}

	// The errors are typed: the refusal keeps its findings, the edit error
	// its cause.
	l := loadLaunch(t, dir, "job", nil)
	_, err := PlanRelaunchLint(context.Background(), l, RelaunchLint{Set: map[string]string{"X": "0"}, WorkDir: dir})
	var re *RefusedError
	if !errors.As(err, &re) || re.Result == nil || re.Command != "relaunch" {
		t.Fatalf("refusal = %#v", err)
	}
	wantEditable := edit("X", 2).Target
	if d := cmp.Diff(&wantEditable, re.Editable); d != "" {
		t.Errorf("Editable (-want +got):\n%s", d)
	}
	_, err = PlanRelaunchLint(context.Background(), l, RelaunchLint{Set: map[string]string{"Z": "0"}, InEnvFile: true})
	var ee *EnvFileEditError
	if !errors.As(err, &ee) || !errors.Is(err, ErrNoClobber) {
		t.Errorf("nothing to edit = %#v, want an *EnvFileEditError wrapping ErrNoClobber", err)
	}
	if got := (&RefusedError{Command: "run", Errors: 1}).Hint(); got != noLint {
		t.Errorf("run's refusal hint = %q, want %q", got, noLint)
	}
}

// TestRelaunchNoteText pins a note's words for each kind, with a line
// that the file does not assign yet (appended) and files relative to the
// working directory or as recorded.
func TestRelaunchNoteText(t *testing.T) {
	target := func(line int) NamedTarget {
		return NamedTarget{Name: "X", EnvFileTarget: EnvFileTarget{File: "/srv/job/conf/job.env", Line: line, Site: Pos{File: "scripts/dispatch.sh", Line: 6, Column: 3}}}
	}
	for _, c := range []struct {
		name    string
		note    RelaunchNote
		wd      string
		want    string
		warning bool
	}{
		{"edit", RelaunchNote{Target: target(4)}, "/srv/job",
			"--in-env-file X: scripts/dispatch.sh:6 re-sources conf/job.env: writing X into it at line 4", false},
		{"edit, as recorded", RelaunchNote{Target: target(4)}, "",
			"--in-env-file X: scripts/dispatch.sh:6 re-sources /srv/job/conf/job.env: writing X into it at line 4", false},
		{"edit, appended", RelaunchNote{Target: target(0)}, "/srv/job",
			"--in-env-file X: scripts/dispatch.sh:6 re-sources conf/job.env: writing X into it at a line appended at its end (it does not assign X itself)", false},
		{"secret", RelaunchNote{Kind: NoteSecretNotKept, Target: target(4)}, "/srv/job",
			"--in-env-file X: X is secret: the value it replaces in conf/job.env:4 is not kept, so --unset X and --round N cannot restore it", true},
		{"secret, appended", RelaunchNote{Kind: NoteSecretNotKept, Target: target(0)}, "/other",
			"--in-env-file X: X is secret: the value it replaces in /srv/job/conf/job.env is not kept, so --unset X and --round N cannot restore it", true},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := c.note.Text(c.wd); got != c.want {
				t.Errorf("Text = %q\nwant   %q", got, c.want)
			}
			if got := c.note.Warning(); got != c.warning {
				t.Errorf("Warning = %v, want %v", got, c.warning)
			}
		})
	}
}
