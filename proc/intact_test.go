package proc

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestIntact: of a block a process title was written over, only the
// entries past the title (its run past the argv area, skip, and any
// chunk that is no NAME=VALUE entry) count, less the first of them (it
// may be the tail of an entry the title cut).
func TestIntact(t *testing.T) {
	for _, tc := range []struct {
		name string
		raw  string
		skip int
		want []Var
	}{
		{"title chunk then entries", "VLLM::EngineCore_0 \x00B=2\x00C=3\x00D=4\x00", 0, []Var{{"C", "3"}, {"D", "4"}}},
		{"a cut name reads as another, dropped", "title text\x00HF_TOKEN=cut\x00HF_TOKEN=real\x00", 0, []Var{{"HF_TOKEN", "real"}}},
		{"the title's run past argv skipped", "ore_0 --x=1\x00LAUNCH=m\x00A=1\x00B=2\x00", 12, []Var{{"A", "1"}, {"B", "2"}}},
		{"only the title's run", "VLLM\x00\x00A=1\x00B=2\x00", 5, []Var{{"B", "2"}}},
		{"NUL bytes only", "\x00\x00\x00\x00", 0, nil},
		{"title to the end", "python3 api.py --workers 2", 0, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if d := cmp.Diff(tc.want, Intact([]byte(tc.raw), tc.skip)); d != "" {
				t.Errorf("Intact(%q, %d) (-want +got):\n%s", tc.raw, tc.skip, d)
			}
		})
	}
}
