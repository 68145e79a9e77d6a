package launcher

import (
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/childproof/childproof/proc"
)

// historyState is a state dir with rounds 1–4 of "job": 1 and 3
// verified (3 with its own --set and one carried from round 1), 2 and 4
// left "launching"; the record names round 3.
func historyState(t *testing.T) *State {
	t.Helper()
	st, err := OpenState(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	v1, v3 := "1", "3"
	at := time.Unix(1000, 0).UTC()
	rounds := []*Round{
		{N: 1, Outcome: "verified", Overrides: []Override{{Name: "A", Value: &v1, Round: 1}},
			WorkerEnv: map[string]string{"A": "d1", "B": "d2", "HOME": "h", "MASTER_PORT": "r1"}},
		{N: 2, Outcome: "launching"},
		{N: 3, Outcome: "verified", Overrides: []Override{{Name: "A", Value: &v1, Round: 1}, {Name: "C", Value: &v3, Round: 3}},
			WorkerEnv: map[string]string{"A": "d1x", "C": "d3", "HOME": "h", "MASTER_PORT": "r2"}},
		{N: 4, Outcome: "launching"},
	}
	for _, r := range rounds {
		r.Name, r.Command, r.Started = "job", "run", at
		if err := st.SaveRound(r, true); err != nil {
			t.Fatal(err)
		}
	}
	if err := st.Save(&Record{Name: "job", Round: 3}); err != nil {
		t.Fatal(err)
	}
	return st
}

// TestHistory: a "launching" round followed by another, or with no
// launch under way, is interrupted; the last one while its launch lock
// is held is still launching. Current is the record's round.
func TestHistory(t *testing.T) {
	st := historyState(t)
	outcomes := func() []string {
		h, err := st.History(proc.Default, "job")
		if err != nil || h.Current != 3 {
			t.Fatalf("history: %v, current %d", err, h.Current)
		}
		var out []string
		for _, r := range h.Rounds {
			out = append(out, string(r.Outcome))
		}
		return out
	}
	if d := cmp.Diff([]string{"verified", "interrupted", "verified", "interrupted"}, outcomes()); d != "" {
		t.Errorf("no launch under way (-want +got):\n%s", d)
	}
	l, err := st.Lock("job")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Unlock()
	if d := cmp.Diff([]string{"verified", "interrupted", "verified", "launching"}, outcomes()); d != "" {
		t.Errorf("a launch under way (-want +got):\n%s", d)
	}
	if r, _ := st.LoadRound("job", 2); r.Outcome != "launching" {
		t.Errorf("round 2's file was rewritten: %s", r.Outcome)
	}
	if h, _ := st.History(proc.Default, "none"); len(h.Rounds) != 0 || h.Current != 0 {
		t.Errorf("a name with no rounds: %+v", h)
	}
}

// TestDiffRounds: the names whose digests differ between rounds 1 and
// 3, with the overrides that set them (round 3's A carried from round
// 1) and MASTER_PORT volatile (built in); a round with no worker environment, or none
// at all, is a *RoundError.
func TestDiffRounds(t *testing.T) {
	st := historyState(t)
	got, err := st.DiffRounds("job", 1, 3)
	if err != nil {
		t.Fatal(err)
	}
	v1, v3 := "1", "3"
	a := Override{Name: "A", Value: &v1, Round: 1}
	want := []EnvDiff{
		{Name: "A", How: Changed, A: "d1", B: "d1x", Overrides: []DiffOverride{{In: 1, Override: a}, {In: 3, Override: a}}},
		{Name: "B", How: OnlyInA, A: "d2"},
		{Name: "C", How: OnlyInB, B: "d3", Overrides: []DiffOverride{{In: 3, Override: Override{Name: "C", Value: &v3, Round: 3}}}},
		{Name: "MASTER_PORT", How: Changed, A: "r1", B: "r2", Volatile: true},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("diff (-want +got):\n%s", d)
	}
	if got, _ := st.DiffRounds("job", 3, 3); len(got) != 0 {
		t.Errorf("a round against itself: %+v", got)
	}
	var re *RoundError
	if _, err := st.DiffRounds("job", 1, 2); !errors.As(err, &re) || re.N != 2 || re.Round == nil || !errors.Is(err, ErrNoWorkerEnv) {
		t.Errorf("round 2: %v", err)
	}
	if _, err := st.DiffRounds("job", 9, 1); !errors.As(err, &re) || re.N != 9 || re.Round != nil {
		t.Errorf("round 9: %v", err)
	}
}
