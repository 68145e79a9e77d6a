package relaunch

import (
	"testing"

	"github.com/childproof/childproof/schema"
	"github.com/google/go-cmp/cmp"
)

func TestPlainSecretSets(t *testing.T) {
	l := &schema.Launch{Name: "job", Secret: []string{"LISTED"},
		Env:       map[string]string{"FROM_ENV": "v", "PLAIN": "p"},
		Sensitive: map[string]bool{"env[FROM_ENV]": true, "env[NOT_IN_ENV]": true}}
	set := map[string]string{"LISTED": "1", "FROM_ENV": "2", "PLAIN": "3", "NOT_IN_ENV": "4", "GIVEN": "5", "OTHER": "6"}
	tests := []struct {
		name      string
		secretSet []string
		want      []string
	}{
		{"every secret name given with --set", nil, []string{"FROM_ENV", "LISTED"}},
		{"one given with --set-secret", []string{"LISTED"}, []string{"FROM_ENV"}},
		{"both given with --set-secret", []string{"LISTED", "FROM_ENV"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, PlainSecretSets(l, set, tt.secretSet)); diff != "" {
				t.Errorf("PlainSecretSets (-want +got):\n%s", diff)
			}
		})
	}
}
