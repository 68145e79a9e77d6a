package journal

import (
	"errors"
	"testing"

	"github.com/childproof/childproof/launcher/statedir"
	"github.com/childproof/childproof/outcome"
	"github.com/childproof/childproof/proc"
	"github.com/childproof/childproof/redact"
	"github.com/childproof/childproof/spec"
	"github.com/childproof/childproof/verify"
	"github.com/google/go-cmp/cmp"
)

func openStore(t *testing.T) *statedir.Store {
	t.Helper()
	st, err := statedir.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// A --var value that holds a secret is kept by its digest only; the last
// of a name given twice wins; an entry without "=" is no variable.
func TestRecordVars(t *testing.T) {
	st := openStore(t)
	secrets := redact.Of([]redact.Secret{{Name: "TOKEN", Value: "s3cr3t-value"}}, nil)
	tests := []struct {
		name string
		vars []string
		want []statedir.RecordVar
	}{
		{"none", nil, nil},
		{"plain", []string{"a=1", "b=two"}, []statedir.RecordVar{{Name: "a", Value: "1"}, {Name: "b", Value: "two"}}},
		{"last wins", []string{"a=1", "b=2", "a=3"}, []statedir.RecordVar{{Name: "b", Value: "2"}, {Name: "a", Value: "3"}}},
		{"no equals", []string{"a", "b=2"}, []statedir.RecordVar{{Name: "b", Value: "2"}}},
		{"secret", []string{"t=x-s3cr3t-value"}, []statedir.RecordVar{{Name: "t", Digest: st.Digest("var.t", "x-s3cr3t-value")}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, recordVars(st, tc.vars, secrets)); diff != "" {
				t.Errorf("recordVars(%q) (-want +got):\n%s", tc.vars, diff)
			}
		})
	}
}

// An override's value is kept unless --set-secret or the spec makes it
// secret; its digest is kept either way.
func TestOverride(t *testing.T) {
	st := openStore(t)
	l := &spec.Launch{Name: "api", Secret: []string{"KEY"}}
	v := "value"
	tests := []struct {
		name      string
		secretSet []string
		want      statedir.Override
	}{
		{"PORT", nil, statedir.Override{Name: "PORT", Digest: st.Digest("PORT", v), Value: &v}},
		{"PORT", []string{"PORT"}, statedir.Override{Name: "PORT", Digest: st.Digest("PORT", v), Secret: true}},
		{"KEY", nil, statedir.Override{Name: "KEY", Digest: st.Digest("KEY", v), Secret: true}},
	}
	for _, tc := range tests {
		if diff := cmp.Diff(tc.want, Override(st, l, tc.secretSet, tc.name, v)); diff != "" {
			t.Errorf("Override(%s, secret set %q) (-want +got):\n%s", tc.name, tc.secretSet, diff)
		}
	}
}

// Rounds are numbered one after another with their --set overrides
// sorted; a failed start without a tree ends its round failed, and a
// refused one says why.
func TestBeginFinishRefuse(t *testing.T) {
	st := openStore(t)
	l := &spec.Launch{Name: "api"}
	start := Start{SpecHash: "h", Set: map[string]string{"B": "2", "A": "1"}, Proc: proc.Default}
	r1 := Begin(st, l, start, nil)
	if r1 == nil || r1.N != 1 || r1.Command != statedir.CommandStart || r1.Outcome != statedir.RoundLaunching {
		t.Fatalf("first round: %+v", r1)
	}
	var names []string
	for _, o := range r1.Delta.Set {
		names = append(names, o.Name)
	}
	if diff := cmp.Diff([]string{"A", "B"}, names); diff != "" {
		t.Errorf("delta's --set names (-want +got):\n%s", diff)
	}
	Finish(st, r1, nil, errors.New("no tree"))
	got, err := st.LoadRound("api", 1)
	if err != nil {
		t.Fatal(err)
	}
	if got.Outcome != statedir.RoundFailed || got.ExitCode != outcome.Usage.Code() || got.End != nil {
		t.Errorf("failed round: outcome %s, exit %d, end %+v", got.Outcome, got.ExitCode, got.End)
	}
	r2 := Begin(st, l, Start{Command: statedir.CommandRestart, Proc: proc.Default}, &Plan{Set: []string{"A"}, Overrides: map[string]statedir.Override{"A": {Name: "A"}}})
	if r2 == nil || r2.N != 2 || len(r2.Delta.Set) != 0 || len(r2.Overrides) != 1 || r2.Overrides[0].Round != 2 {
		t.Fatalf("restart round: %+v", r2)
	}
	Finish(st, r2, &Attempt{WorkerEnv: map[string]string{"A": "d"}}, nil)
	Refuse(st, "api", 2)
	got, err = st.LoadRound("api", 2)
	if err != nil {
		t.Fatal(err)
	}
	if got.Outcome != statedir.RoundRefused || got.ExitCode != outcome.Delta.Code() || got.End == nil || got.End.How != statedir.EndStopped ||
		!cmp.Equal(got.Problems, []verify.Kind{verify.KindDelta}) {
		t.Errorf("refused round: %+v", got)
	}
}
