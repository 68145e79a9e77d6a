package statedir

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestRoundRedacted(t *testing.T) {
	s := func(v string) *string { return &v }
	round := func() *Round {
		edit := &EnvFileEdit{File: "/srv/.env", Line: 3, Round: 2, OldDigest: "hmac-sha256:old", Old: s(`"30"`), After: "hmac-sha256:file", AfterLines: []string{"hmac-sha256:l1"}}
		return &Round{N: 2, Name: "job", Outcome: RoundVerified,
			Delta: RoundDelta{Set: []Override{
				{Name: "TIMEOUT", Value: s("60"), Digest: "hmac-sha256:t", Round: 2, EnvFile: edit},
				{Name: "TOKEN", Value: s("never-shown"), Digest: "hmac-sha256:k", Secret: true, Round: 2},
			}},
			Overrides: []Override{
				{Name: "LEVEL", Value: s("debug"), Digest: "hmac-sha256:l", Round: 1},
				{Name: "TIMEOUT", Value: s("60"), Digest: "hmac-sha256:t", Round: 2, EnvFile: edit},
			},
			WorkerEnv: map[string]string{"TIMEOUT": "hmac-sha256:t"}, MAC: "mac"}
	}
	tests := []struct {
		name       string
		showValues bool
		want       func() *Round
	}{
		{"digests only", false, func() *Round {
			edit := &EnvFileEdit{File: "/srv/.env", Line: 3, Round: 2, OldDigest: "hmac-sha256:old", After: "hmac-sha256:file"}
			return &Round{N: 2, Name: "job", Outcome: RoundVerified,
				Delta: RoundDelta{Set: []Override{
					{Name: "TIMEOUT", Digest: "hmac-sha256:t", Round: 2, EnvFile: edit},
					{Name: "TOKEN", Digest: "hmac-sha256:k", Secret: true, Round: 2},
				}},
				Overrides: []Override{
					{Name: "LEVEL", Digest: "hmac-sha256:l", Round: 1},
					{Name: "TIMEOUT", Digest: "hmac-sha256:t", Round: 2, EnvFile: edit},
				}}
		}},
		{"--show-values: never a secret's", true, func() *Round {
			edit := &EnvFileEdit{File: "/srv/.env", Line: 3, Round: 2, OldDigest: "hmac-sha256:old", Old: s(`"30"`), After: "hmac-sha256:file"}
			return &Round{N: 2, Name: "job", Outcome: RoundVerified,
				Delta: RoundDelta{Set: []Override{
					{Name: "TIMEOUT", Value: s("60"), Digest: "hmac-sha256:t", Round: 2, EnvFile: edit},
					{Name: "TOKEN", Digest: "hmac-sha256:k", Secret: true, Round: 2},
				}},
				Overrides: []Override{
					{Name: "LEVEL", Value: s("debug"), Digest: "hmac-sha256:l", Round: 1},
					{Name: "TIMEOUT", Value: s("60"), Digest: "hmac-sha256:t", Round: 2, EnvFile: edit},
				}}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := round()
			got := r.Redacted(tt.showValues)
			if diff := cmp.Diff(tt.want(), got); diff != "" {
				t.Errorf("Redacted (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(round(), r); diff != "" {
				t.Errorf("Redacted changed the round (-want +got):\n%s", diff)
			}
		})
	}
}
