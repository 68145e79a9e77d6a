package schema

import (
	"maps"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestWithEnv(t *testing.T) {
	for _, tc := range []struct {
		name          string
		env, set      map[string]string
		want          map[string]string
		wantProtected []string
	}{
		{"no set: the launch itself", map[string]string{"A": "1"}, nil, map[string]string{"A": "1"}, []string{"A", "R"}},
		{"set over the env", map[string]string{"A": "1", "B": "2"}, map[string]string{"B": "3", "C": "4"},
			map[string]string{"A": "1", "B": "3", "C": "4"}, []string{"A", "B", "C", "R"}},
		{"a launch without env", nil, map[string]string{"C": "4"}, map[string]string{"C": "4"}, []string{"C", "R"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := &Launch{Name: "job", Env: tc.env, Require: []string{"R"}}
			before := maps.Clone(tc.env)
			got := l.WithEnv(tc.set)
			if diff := cmp.Diff(tc.want, got.Env); diff != "" {
				t.Errorf("Env (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.wantProtected, got.Protected()); diff != "" {
				t.Errorf("Protected (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(before, l.Env); diff != "" {
				t.Errorf("WithEnv changed l's env (-want +got):\n%s", diff)
			}
			if (len(tc.set) == 0) != (got == l) {
				t.Errorf("WithEnv returned l itself: %v, want %v", got == l, len(tc.set) == 0)
			}
		})
	}
}
