package schema

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestAliasOf(t *testing.T) {
	l := &Launch{Name: "job", Aliases: map[string]string{"OLD_NAME": "NEW_NAME", "HF_XET_DISABLE": "SPEC_SAYS"}}
	type got struct {
		Real  string
		Alias bool
	}
	for _, tc := range []struct {
		launch *Launch
		name   string
		want   got
	}{
		{l, "OLD_NAME", got{"NEW_NAME", true}},
		{l, "HF_XET_DISABLE", got{"SPEC_SAYS", true}}, // the spec's block wins
		{&Launch{Name: "bare"}, "HF_XET_DISABLE", got{"HF_HUB_DISABLE_XET", true}},
		{l, "NEW_NAME", got{}},
		{&Launch{Name: "bare"}, "PATH", got{}},
	} {
		real, ok := tc.launch.AliasOf(tc.name)
		if diff := cmp.Diff(tc.want, got{real, ok}); diff != "" {
			t.Errorf("%s.AliasOf(%q) (-want +got):\n%s", tc.launch.Name, tc.name, diff)
		}
	}
}
