package envres

import (
	"context"
	"errors"
	"testing"

	"github.com/childproof/childproof/outcome"
)

func TestLintBeforeLaunch(t *testing.T) {
	dir := writeTree(t, map[string]string{
		"spec.hcl": `launch "clean" {
  command = ["./api"]
  env = { API_KEY = "k" }
}
launch "login" {
  command = ["bash", "-lc", "./api"]
  env = { API_KEY = "k" }
}
launch "broken" {
  dispatch = ["broken.sh"]
}
`,
		"broken.sh": "#!/bin/bash\nif then\n",
	})
	ctx := context.Background()

	if res, err := LintBeforeLaunch(ctx, "run", loadLaunch(t, dir, "clean", nil)); err != nil || res == nil {
		t.Errorf("clean: res %v, err %v, want a result and no error", res, err)
	}

	res, err := LintBeforeLaunch(ctx, "relaunch", loadLaunch(t, dir, "login", nil))
	var re *RefusedError
	if !errors.As(err, &re) {
		t.Fatalf("login: err = %v, want a *RefusedError", err)
	}
	if errs, _ := res.Count(); re.Errors != errs || errs == 0 || re.Result != res || re.Command != "relaunch" {
		t.Errorf("login: refusal %+v, result with %d errors", re, errs)
	}
	if want := "relaunch refused: the launch's dispatch chain has 1 lint error(s)"; err.Error() != want {
		t.Errorf("login: %q, want %q", err, want)
	}
	if k := outcome.Of(err); k != outcome.Refused {
		t.Errorf("login: outcome %v, want %v", k, outcome.Refused)
	}
	if res.Refusal("up").(*RefusedError).Command != "up" {
		t.Error("Refusal does not name its command")
	}
	if (&Result{}).Refusal("run") != nil {
		t.Error("Refusal of a result without errors is not nil")
	}

	_, err = LintBeforeLaunch(ctx, "run", loadLaunch(t, dir, "broken", nil))
	var le *LintError
	var pe *ParseError
	if !errors.As(err, &le) || !errors.As(err, &pe) {
		t.Fatalf("broken: err = %v, want a *LintError around a *ParseError", err)
	}
	if err.Error() != pe.Error() || outcome.Of(err) != outcome.Usage {
		t.Errorf("broken: %q (%v), want %q (usage)", err, outcome.Of(err), pe)
	}
	if got := (&LintError{Err: errors.New("x")}).Error(); got != "lint: x" {
		t.Errorf("LintError = %q, want %q", got, "lint: x")
	}
}
