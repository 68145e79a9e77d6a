package envres

import (
	"context"
	"errors"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestPlanRelaunchLintErrors: the errors are typed: the refusal keeps
// its findings and the editable target, the edit error its cause. (The
// command's words for them: cmd/childproof's TestPlanRelaunchLint.)
func TestPlanRelaunchLintErrors(t *testing.T) {
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
}
