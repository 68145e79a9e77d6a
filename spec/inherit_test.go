package spec

import (
	"testing"

	"github.com/childproof/childproof/internal/specrule"
)

func TestMatchInherit(t *testing.T) {
	for _, tc := range []struct {
		pattern, name string
		want          bool
	}{
		{"PATH", "PATH", true},
		{"PATH", "PATHX", false},
		{"CUDA_*", "CUDA_VISIBLE_DEVICES", true},
		{"CUDA_*", "CUDA_", true},
		{"CUDA_*", "XCUDA_A", false},
		{"*", "ANYTHING", true},
		{"HF_?", "HF_A", true},
		{"HF_?", "HF_AB", false},
		{"[AB]_X", "B_X", true},
	} {
		if got := matchInherit(tc.pattern, tc.name); got != tc.want {
			t.Errorf("matchInherit(%q, %q) = %v, want %v", tc.pattern, tc.name, got, tc.want)
		}
	}
	for s, want := range map[string]bool{"PATH": true, "CUDA_*": true, "*": true, "[AB]_X": true, "A-B": false, "CUDA_[": false, "X/*": false, "": false, "1A": false} {
		if got := specrule.IsInheritEntry(s); got != want {
			t.Errorf("specrule.IsInheritEntry(%q) = %v, want %v", s, got, want)
		}
	}
}
