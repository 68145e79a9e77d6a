package launcher_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/childproof/childproof/launcher"
	"github.com/childproof/childproof/launcher/present"
	"github.com/childproof/childproof/launcher/relaunch"
	"github.com/childproof/childproof/outcome"
	"github.com/childproof/childproof/verify"
	"github.com/google/go-cmp/cmp"
)

// This file tests what package present renders from a launcher value only
// launcher's own tests can make (export_linux_test.go): a state dir with
// rounds, a Launch with a worker and a round.

// TestCompareRounds: history --diff's answer in words — each name's How,
// override and volatile note, the summary line, the JSON object — and
// its errors, byte for byte.
func TestCompareRounds(t *testing.T) {
	st := launcher.HistoryState(t)
	type line struct{ Name, How, Note string }
	tests := []struct {
		a, b    int
		summary string
		lines   []line
		err     string
		fix     launcher.Fix
	}{
		{a: 1, b: 3, summary: "rounds 1 and 3 of job: 4 names differ on the worker", lines: []line{
			{"A", "changed", "  --set=1 in round 1; --set=1 in round 1 (carried forward into round 3)"},
			{"B", "only in round 1", ""},
			{"C", "only in round 3", "  --set=3 in round 3"},
			{"MASTER_PORT", "changed", "  volatile (set anew on every launch)"},
		}},
		{a: 3, b: 3, summary: "rounds 3 and 3 of job: the workers' environments are identical (every digest equal)"},
		{a: 1, b: 2, err: `round 2 of "job" has no verified worker (launching): there is no environment to compare`},
		{a: 9, b: 1, err: `no round 9 of "job" is recorded in ` + st.Dir, fix: launcher.FixRounds},
	}
	for _, tt := range tests {
		d, err := present.CompareRounds(st, "job", tt.a, tt.b, present.TextOptions{ShowValues: true})
		if tt.err != "" {
			var e *launcher.Error
			if !errors.As(err, &e) || e.Outcome != outcome.Usage || err.Error() != tt.err || e.Fix != tt.fix || tt.fix != launcher.FixNone && e.Name != "job" {
				t.Errorf("rounds %d and %d: error %v (fix %d), want %q (fix %d), outcome Usage", tt.a, tt.b, err, e.Fix, tt.err, tt.fix)
			}
			continue
		}
		if err != nil {
			t.Fatalf("rounds %d and %d: %v", tt.a, tt.b, err)
		}
		if got := d.Summary(); got != tt.summary {
			t.Errorf("rounds %d and %d: summary %q, want %q", tt.a, tt.b, got, tt.summary)
		}
		var got []line
		for _, n := range d.Differ {
			got = append(got, line{n.Name, n.How, n.Note()})
		}
		if diff := cmp.Diff(tt.lines, got); diff != "" {
			t.Errorf("rounds %d and %d (-want +got):\n%s", tt.a, tt.b, diff)
		}
	}
	one := &present.RoundsDiff{A: 2, B: 3, Name: "job", Differ: []present.DiffName{{Name: "B"}}}
	if got, want := one.Summary(), "rounds 2 and 3 of job: 1 name differs on the worker"; got != want {
		t.Errorf("one name: %q, want %q", got, want)
	}
	d, err := present.CompareRounds(st, "job", 3, 3, present.TextOptions{})
	if err != nil {
		t.Fatal(err)
	}
	d.Differ = append(d.Differ, present.DiffName{Name: "A", How: "changed", A: "d1", B: "d1x", Override: "--set=<secret> in round 3", Volatile: true}, present.DiffName{Name: "B", How: "only in round 3", B: "d"})
	var b strings.Builder
	if err := present.JSON(&b, d); err != nil {
		t.Fatal(err)
	}
	want := `{
  "a": 3,
  "b": 3,
  "differ": [
    {
      "name": "A",
      "how": "changed",
      "a": "d1",
      "b": "d1x",
      "override": "--set=<secret> in round 3",
      "volatile": true
    },
    {
      "name": "B",
      "how": "only in round 3",
      "b": "d"
    }
  ],
  "name": "job"
}
`
	if diff := cmp.Diff(want, b.String()); diff != "" {
		t.Errorf("JSON (-want +got):\n%s", diff)
	}
}

// TestNewRunOutput: run's output of a Launch carries its round.
func TestNewRunOutput(t *testing.T) {
	rep := &verify.Report{Name: "job", Verified: true}
	if diff := cmp.Diff(&present.RunOutput{Report: rep, Round: 3}, present.NewRunOutput(launcher.NewTestLaunch(rep, 4300, 3))); diff != "" {
		t.Errorf("NewRunOutput (-want +got):\n%s", diff)
	}
}

// TestRollbackTextBack pins what relaunch --rollback says when the
// rolled-back round is back: its new round and its worker.
func TestRollbackTextBack(t *testing.T) {
	back := launcher.NewTestLaunch(nil, 777, 6)
	rb := &relaunch.RollbackResult{From: 4, Launch: back, Tried: true}
	want := "--rollback: round 4 is back as round 6: worker pid 777 verified, detached (childproof history job; stop it with: childproof stop job)"
	if got := present.RollbackText(rb, "job"); got != want {
		t.Errorf("RollbackText = %q, want %q", got, want)
	}
}
