package envres

import "testing"

// checkFindings are n findings of severity sev.
func checkFindings(n int, sev Severity) []Finding {
	out := make([]Finding, n)
	for i := range out {
		out[i] = Finding{Rule: "login-shell", Severity: sev}
	}
	return out
}

// TestCheckRow pins check's lint row of a launch, byte for byte: ok with
// the files read, ok for a command launch, the counts otherwise.
func TestCheckRow(t *testing.T) {
	for _, c := range []struct {
		name string
		res  *Result
		want string
	}{
		{"command launch", &Result{}, "  lint       ok (no script: a command launch)"},
		{"nil", nil, "  lint       ok (no script: a command launch)"},
		{"one file", &Result{Files: []string{"run.sh"}}, "  lint       ok (run.sh)"},
		{"files", &Result{Files: []string{"run.sh", "/etc/profile", "lib/env.sh"}}, "  lint       ok (run.sh, /etc/profile, lib/env.sh)"},
		{"one error", &Result{Files: []string{"run.sh"}, Findings: checkFindings(1, SeverityError)}, "  lint       1 error, 0 warnings"},
		{"one warning", &Result{Files: []string{"run.sh"}, Findings: checkFindings(1, SeverityWarning)}, "  lint       0 errors, 1 warning"},
		{"several", &Result{Findings: append(checkFindings(2, SeverityError), checkFindings(3, SeverityWarning)...)}, "  lint       2 errors, 3 warnings"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := c.res.CheckRow(); got != c.want {
				t.Errorf("CheckRow() =\n%q, want\n%q", got, c.want)
			}
		})
	}
}

// TestCheckVerdict pins check's closing line, byte for byte: ok, FAILED
// with an error, FAILED (--strict) with a warning under strict only, and
// the counts' plurals.
func TestCheckVerdict(t *testing.T) {
	warn, both := &Result{Findings: checkFindings(1, SeverityWarning)}, &Result{Findings: append(checkFindings(1, SeverityError), checkFindings(2, SeverityWarning)...)}
	for _, c := range []struct {
		name     string
		launches int
		merged   *Result
		strict   bool
		want     string
	}{
		{"ok", 1, &Result{}, false, "childproof.hcl: ok: 1 launch checked, 0 lint errors, 0 lint warnings"},
		{"ok, strict", 3, &Result{}, true, "childproof.hcl: ok: 3 launches checked, 0 lint errors, 0 lint warnings"},
		{"nil", 0, nil, false, "childproof.hcl: ok: 0 launches checked, 0 lint errors, 0 lint warnings"},
		{"warning", 2, warn, false, "childproof.hcl: ok: 2 launches checked, 0 lint errors, 1 lint warning"},
		{"warning, strict", 2, warn, true, "childproof.hcl: FAILED (--strict): 2 launches checked, 0 lint errors, 1 lint warning"},
		{"error", 1, both, false, "childproof.hcl: FAILED: 1 launch checked, 1 lint error, 2 lint warnings"},
		{"error, strict", 1, both, true, "childproof.hcl: FAILED: 1 launch checked, 1 lint error, 2 lint warnings"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := CheckVerdict("childproof.hcl", c.launches, c.merged, c.strict); got != c.want {
				t.Errorf("CheckVerdict =\n%q, want\n%q", got, c.want)
			}
		})
	}
}
