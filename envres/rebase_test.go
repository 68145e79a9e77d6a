package envres

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestRebasePath(t *testing.T) {
	for _, tc := range []struct {
		p, dir, wd, want string
	}{
		{"run.sh", "/w/proj", "/w", "proj/run.sh"},
		{"lib/env.sh", "/w/proj", "/w/proj", "lib/env.sh"},
		{"../run.sh", "/w/proj", "/w/proj", "/w/run.sh"}, // outside wd: absolute
		{"/w/proj/run.sh", "/elsewhere", "/w", "proj/run.sh"},
		{"/etc/profile", "/w/proj", "/w", "/etc/profile"},
		{"run.sh", "", "/w", "run.sh"},              // relative to nothing known
		{"run.sh", "/w/proj", "", "/w/proj/run.sh"}, // wd unknown
		{CommandFile, "/w/proj", "/w", CommandFile},
		{"", "/w/proj", "/w", ""},
	} {
		if got := RebasePath(tc.p, tc.dir, tc.wd); got != tc.want {
			t.Errorf("RebasePath(%q, %q, %q) = %q, want %q", tc.p, tc.dir, tc.wd, got, tc.want)
		}
	}
}

func TestResultRebase(t *testing.T) {
	res := &Result{
		Findings: []Finding{{
			Rule: "assign-clobber", Severity: SeverityError, Pos: Pos{File: "lib/env.sh", Line: 3, Column: 5}, Message: "m",
			Chain: []Pos{{File: "run.sh", Line: 2}, {File: "lib/env.sh", Line: 3}},
		}, {
			Rule: "env-reset", Severity: SeverityWarning, Pos: Pos{File: CommandFile, Line: 1, Column: 1}, Message: "c",
		}},
		Files:   []string{"run.sh", "lib/env.sh", "/etc/profile"},
		Sources: map[string][]byte{"run.sh": []byte("a"), CommandFile: []byte("b")},
	}
	want := &Result{
		Findings: []Finding{{
			Rule: "assign-clobber", Severity: SeverityError, Pos: Pos{File: "proj/lib/env.sh", Line: 3, Column: 5}, Message: "m",
			Chain: []Pos{{File: "proj/run.sh", Line: 2}, {File: "proj/lib/env.sh", Line: 3}},
		}, {
			Rule: "env-reset", Severity: SeverityWarning, Pos: Pos{File: CommandFile, Line: 1, Column: 1}, Message: "c",
		}},
		Files:   []string{"proj/run.sh", "proj/lib/env.sh", "/etc/profile"},
		Sources: map[string][]byte{"proj/run.sh": []byte("a"), CommandFile: []byte("b")},
	}
	orig := res.Findings[0].Chain[0]
	if diff := cmp.Diff(want, res.Rebase("/w/proj", "/w")); diff != "" {
		t.Errorf("Rebase (-want +got):\n%s", diff)
	}
	if res.Findings[0].Chain[0] != orig || res.Files[0] != "run.sh" {
		t.Errorf("Rebase changed its receiver")
	}
	if got := res.Rebase("", "/w"); got != res {
		t.Errorf("Rebase with no dir: a new result")
	}
	if got := (*Result)(nil).Rebase("/w/proj", "/w"); got != nil {
		t.Errorf("nil.Rebase = %v", got)
	}
}
