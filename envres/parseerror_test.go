package envres_test

import (
	"testing"

	"github.com/childproof/childproof/envres"
)

// TestParseErrorAt: where check names a script that does not parse: its
// path for the user in wd, and the line and column when known.
func TestParseErrorAt(t *testing.T) {
	tests := []struct {
		pos     envres.Pos
		dir, wd string
		want    string
	}{
		// Relative to the launch's dir, below wd: relative to wd.
		{envres.Pos{File: "run.sh", Line: 3, Column: 7}, "/p/api", "/p", "api/run.sh:3:7"},
		// Not below wd: absolute.
		{envres.Pos{File: "run.sh", Line: 3, Column: 7}, "/p/api", "/q", "/p/api/run.sh:3:7"},
		// An absolute file stays as it is, even below wd.
		{envres.Pos{File: "/p/api/lib.sh", Line: 1, Column: 1}, "/p/api", "/p", "/p/api/lib.sh:1:1"},
		// No line (the file could not be read): the file alone.
		{envres.Pos{File: "gone.sh"}, "/p/api", "/p", "api/gone.sh"},
		// A column 0 is shown as it is.
		{envres.Pos{File: "run.sh", Line: 2}, "/p", "/p", "run.sh:2:0"},
		// wd unknown: the path joined with dir.
		{envres.Pos{File: "run.sh", Line: 2, Column: 4}, "/p/api", "", "/p/api/run.sh:2:4"},
	}
	for _, tt := range tests {
		e := &envres.ParseError{Pos: tt.pos, Msg: "syntax error"}
		if got := e.At(tt.dir, tt.wd); got != tt.want {
			t.Errorf("%+v.At(%q, %q) = %q, want %q", tt.pos, tt.dir, tt.wd, got, tt.want)
		}
	}
}
