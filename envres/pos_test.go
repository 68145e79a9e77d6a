package envres

import "testing"

func TestPosString(t *testing.T) {
	for _, tc := range []struct {
		p    Pos
		want string
	}{
		{Pos{File: "run.sh", Line: 3, Column: 9}, "run.sh:3:9"},
		{Pos{File: "run.sh", Line: 3}, "run.sh:3:1"},
		{Pos{File: "run.sh"}, "run.sh"},
	} {
		if got := tc.p.String(); got != tc.want {
			t.Errorf("%#v.String() = %q, want %q", tc.p, got, tc.want)
		}
	}
}

func TestPosCharColumn(t *testing.T) {
	line := "é=ü x" // é and ü are two bytes each
	for _, tc := range []struct{ col, want int }{{0, 1}, {1, 1}, {3, 2}, {6, 4}, {8, 6}, {10, 8}} {
		if got := (Pos{Column: tc.col}).CharColumn(line); got != tc.want {
			t.Errorf("CharColumn(byte %d) = %d, want %d", tc.col, got, tc.want)
		}
	}
}
