package envres

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestEnvFileTargets: the env file whose load decides a protected name's
// value, and the line there, or why it cannot take the value; names not
// asked for are left out.
func TestEnvFileTargets(t *testing.T) {
	x := []Override{{Name: "X", Value: "0", Known: true}, {Name: "Y", Value: "0", Known: true}}
	tests := []struct {
		name  string
		files map[string]string
		want  map[string]EnvFileTarget // File, Files relative to the test's dir
	}{
		{"set -a source", map[string]string{"run.sh": "set -a\n. ./.env\nset +a\nexec srv\n", ".env": "# c\nX=1\nY=2\n"},
			map[string]EnvFileTarget{"X": {File: ".env", Line: 2, Site: Pos{File: "run.sh", Line: 2}}}},
		{"two loads, the last wins", map[string]string{"run.sh": "set -a\n. ./a.env\n. ./b.env\nset +a\nexec srv\n", "a.env": "X=1\n", "b.env": "\nX=2\n"},
			map[string]EnvFileTarget{"X": {File: "b.env", Line: 2, Site: Pos{File: "run.sh", Line: 3}}}},
		{"generated", map[string]string{"run.sh": "gen > gen.env\nset -a\n. ./gen.env\nset +a\nexec srv\n", "gen.env": "X=1\n"},
			map[string]EnvFileTarget{"X": {File: "gen.env", Site: Pos{File: "run.sh", Line: 3}, Blocked: GeneratedFile}}},
		{"either file", map[string]string{"run.sh": "set -a\nif [ -n \"$PROD\" ]; then . ./a.env; else . ./b.env; fi\nset +a\nexec srv\n", "a.env": "X=1\n", "b.env": "X=2\n"},
			map[string]EnvFileTarget{"X": {Site: Pos{File: "run.sh", Line: 2}, Blocked: SeveralFiles, Files: []string{"a.env", "b.env"}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := lintFiles(t, tt.files, Config{Overrides: x})
			if err != nil {
				t.Fatal(err)
			}
			got := res.EnvFileTargets([]string{"X"})
			rel := func(p string) string {
				if p == "" {
					return ""
				}
				for name := range tt.files {
					if strings.HasSuffix(p, "/"+name) {
						r, _ := filepath.Rel(strings.TrimSuffix(p, "/"+name), p)
						return r
					}
				}
				return p
			}
			for n, tg := range got {
				tg.File = rel(tg.File)
				for i := range tg.Files {
					tg.Files[i] = rel(tg.Files[i])
				}
				got[n] = tg
			}
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("targets (-want +got):\n%s\n%v", d, reduce(res))
			}
		})
	}
}

// TestWithoutClobbers: an edit of X's env file fixes the finding that
// clobbers X alone; one that clobbers X and Y stays while Y is not
// edited.
func TestWithoutClobbers(t *testing.T) {
	x := []Override{{Name: "X", Value: "0", Known: true}, {Name: "Y", Value: "0", Known: true}}
	res, err := lintFiles(t, map[string]string{"run.sh": "set -a\n. ./.env\nset +a\nexec srv\n", ".env": "X=1\nY=2\n"}, Config{Overrides: x})
	if err != nil {
		t.Fatal(err)
	}
	clobbers := func(r *Result) int {
		n := 0
		for _, f := range r.Findings {
			if f.Rule == EnvFileClobber.Name {
				n++
			}
		}
		return n
	}
	if clobbers(res) == 0 {
		t.Fatalf("no env-file-clobber finding: %v", reduce(res))
	}
	if n := clobbers(res.WithoutClobbers([]string{"X"})); n != clobbers(res) {
		t.Errorf("with Y not edited, %d of %d clobber findings left", n, clobbers(res))
	}
	if n := clobbers(res.WithoutClobbers([]string{"X", "Y"})); n != 0 {
		t.Errorf("with X and Y edited, %d clobber findings left", n)
	}
	if clobbers(res) == 0 {
		t.Error("WithoutClobbers changed res")
	}
}

// TestEnvFileEdits: relaunch --in-env-file's decision — the editable
// targets in name order and the findings they fix removed, no clobber at
// all, or the first name whose env file cannot be edited (with the names
// before it).
func TestEnvFileEdits(t *testing.T) {
	x := []Override{{Name: "A", Value: "0", Known: true}, {Name: "X", Value: "0", Known: true}, {Name: "Y", Value: "0", Known: true}}
	type got struct {
		Edits     []string // NAME@file:line
		Clobbers  int      // env-file-clobber findings left; -1: no Result
		NoClobber bool
		Blocked   string // the *BlockedError's name
	}
	tests := []struct {
		name  string
		files map[string]string
		names []string
		want  got
	}{
		{"two names in one file", map[string]string{"run.sh": "set -a\n. ./.env\nset +a\nexec srv\n", ".env": "Y=1\nX=2\n"},
			[]string{"Y", "X"}, got{Edits: []string{"X@.env:2", "Y@.env:1"}}},
		{"one name of two: its finding stays", map[string]string{"run.sh": "set -a\n. ./.env\nset +a\nexec srv\n", ".env": "X=1\nY=2\n"},
			[]string{"X"}, got{Edits: []string{"X@.env:1"}, Clobbers: 1}},
		{"nothing clobbers the name", map[string]string{"run.sh": "exec srv\n"},
			[]string{"X"}, got{Clobbers: -1, NoClobber: true}},
		{"a generated file, after an editable one", map[string]string{"run.sh": "gen > gen.env\nset -a\n. ./a.env\n. ./gen.env\nset +a\nexec srv\n", "a.env": "A=1\n", "gen.env": "X=1\n"},
			[]string{"X", "A"}, got{Edits: []string{"A@a.env:1"}, Clobbers: -1, Blocked: "X"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := lintFiles(t, tt.files, Config{Overrides: x})
			if err != nil {
				t.Fatal(err)
			}
			edits, fixed, err := res.EnvFileEdits(tt.names)
			var g got
			for _, e := range edits {
				g.Edits = append(g.Edits, fmt.Sprintf("%s@%s:%d", e.Name, filepath.Base(e.File), e.Line))
			}
			g.Clobbers = -1
			if fixed != nil {
				g.Clobbers = 0
				for _, f := range fixed.Findings {
					if f.Rule == EnvFileClobber.Name {
						g.Clobbers++
					}
				}
			}
			g.NoClobber = errors.Is(err, ErrNoClobber)
			var be *BlockedError
			if errors.As(err, &be) {
				g.Blocked = be.Name
			}
			if d := cmp.Diff(tt.want, g); d != "" {
				t.Errorf("EnvFileEdits (-want +got):\n%s\n%v", d, reduce(res))
			}
		})
	}
}

func TestBlockedError(t *testing.T) {
	err := error(&BlockedError{Name: "X", Target: EnvFileTarget{Blocked: GeneratedFile}})
	if diff := cmp.Diff("envres: the env file that clobbers X cannot take its value: generated-file", err.Error()); diff != "" {
		t.Errorf("Error (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff("Blocker(9)", Blocker(9).String()); diff != "" {
		t.Errorf("String (-want +got):\n%s", diff)
	}
}
