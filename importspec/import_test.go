package importspec_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/childproof/childproof/envres"
	"github.com/childproof/childproof/importspec"
)

// listed is a listed note reduced to what TestImport compares.
type listed struct {
	File      string
	Line, Col int
	Todo      bool
}

// writeFiles writes files (executable) into dir.
func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o755); err != nil {
			t.Fatal(err)
		}
	}
}

func TestImport(t *testing.T) {
	t.Chdir(t.TempDir())
	scripts := map[string]string{
		"start-api.sh": "#!/bin/sh\ncd /tmp\nnohup ./api --host 0.0.0.0 --port 8000 > /tmp/api.log 2>&1 &\necho $! > /tmp/api.pid\n",
		"launch.sh":    "#!/bin/bash\nif [ \"$MODE\" = debug ]; then\n  export LOG=debug\nelse\n  export LOG=info\nfi\nexec ./srv --port 8000\n",
		"quiet.sh":     "#!/bin/bash\nif [ -t 1 ]; then echo starting; fi\nexec ./srv --port 8000\n",
		"broken.sh":    "#!/bin/bash\nif then\n",
	}
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	writeFiles(t, wd, scripts)
	tests := []struct {
		script, name string
		wantName     string
		want         []listed
		wantOK       bool
	}{
		// nohup … &, a pidfile and an all-interfaces bind: the spec
		// replaces them, nothing is left to a human. Every import notes
		// (about the script as a whole, no file) that only inherit and
		// env pass; the note that says where the worker starts is not
		// listed.
		{"start-api.sh", "", "start-api", []listed{{"start-api.sh", 3, 1, false}, {}, {"start-api.sh", 3, 20, false}, {"start-api.sh", 4, 1, false}}, true},
		// A conditional that changes the worker's environment is a TODO,
		// and so is the variable it sets two ways; the worker's arguments
		// name no bind address.
		{"launch.sh", "api", "api", []listed{{"launch.sh", 2, 1, true}, {}, {"launch.sh", 3, 10, true}, {"launch.sh", 7, 6, false}}, true},
		// One that changes nothing is dropped, with a note.
		{"quiet.sh", "", "quiet", []listed{{"quiet.sh", 2, 1, false}, {}, {"quiet.sh", 3, 6, false}}, true},
	}
	for _, tc := range tests {
		t.Run(tc.script, func(t *testing.T) {
			spec, err := importspec.Import(context.Background(), tc.script, nil, importspec.Options{Name: tc.name, SpecDir: wd})
			if err != nil {
				t.Fatal(err)
			}
			if spec.Name != tc.wantName {
				t.Errorf("Name = %q, want %q", spec.Name, tc.wantName)
			}
			var got []listed
			for _, n := range spec.Listed() {
				got = append(got, listed{n.File, n.Line, n.Column, n.Todo})
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("Listed (-want +got):\n%s\n%s", diff, spec.Text)
			}
			path := filepath.Join(wd, tc.wantName+".hcl")
			if err := os.WriteFile(path, spec.Text, 0o644); err != nil {
				t.Fatal(err)
			}
			c := importspec.Check(context.Background(), path)
			if c.OK() != tc.wantOK {
				t.Errorf("Check OK = %v, want %v: %v %+v\n%s", c.OK(), tc.wantOK, c.Diagnostics, c.Lint, spec.Text)
			}
			if len(c.Lint) != 1 || c.Lint[0].Launch.Name != tc.wantName {
				t.Errorf("Check linted %+v, want launch %q", c.Lint, tc.wantName)
			}
		})
	}
	t.Run("bad name", func(t *testing.T) {
		if _, err := importspec.Import(context.Background(), "quiet.sh", nil, importspec.Options{Name: "no spaces"}); err == nil {
			t.Error("Import with name \"no spaces\": no error")
		}
	})
	t.Run("unparsable", func(t *testing.T) {
		_, err := importspec.Import(context.Background(), "broken.sh", nil, importspec.Options{SpecDir: wd})
		var pe *envres.ParseError
		if !errors.As(err, &pe) || pe.Line != 2 {
			t.Errorf("err = %v, want a *envres.ParseError at line 2", err)
		}
	})
}

// TestCheck: a spec that does not load is its diagnostics and no lint; a
// launch whose chain clobbers a protected name fails on its lint.
func TestCheck(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"bad.hcl":     "launch \"a\" {\n  command = \"not a list\"\n}\n",
		"clobber.hcl": "launch \"a\" {\n  dispatch = [\"run.sh\"]\n  env = { KEY = \"k\" }\n}\n",
		"run.sh":      "#!/bin/bash\nset -a\n. ./.env\nset +a\nexec ./srv\n",
		".env":        "KEY=other\n",
	}
	writeFiles(t, dir, files)
	bad := importspec.Check(context.Background(), filepath.Join(dir, "bad.hcl"))
	if bad.OK() || !bad.Diagnostics.HasErrors() || bad.Lint != nil {
		t.Errorf("bad.hcl: OK %v, diagnostics %v, lint %+v; want an error and no lint", bad.OK(), bad.Diagnostics, bad.Lint)
	}
	c := importspec.Check(context.Background(), filepath.Join(dir, "clobber.hcl"))
	if c.OK() || len(c.Lint) != 1 || c.Lint[0].Err != nil {
		t.Fatalf("clobber.hcl: OK %v, lint %+v; want one launch linted with an error finding", c.OK(), c.Lint)
	}
	var rules []string
	for _, f := range c.Lint[0].Result.Findings {
		rules = append(rules, f.Rule)
	}
	if diff := cmp.Diff([]string{"env-file-clobber"}, rules); diff != "" {
		t.Errorf("clobber.hcl rules (-want +got):\n%s", diff)
	}
}

func TestListed(t *testing.T) {
	a := importspec.Note{Pos: envres.Pos{File: "run.sh", Line: 2, Column: 1}, Text: "a"}
	where := importspec.Note{Pos: envres.Pos{File: "run.sh", Line: 5, Column: 1}, Text: "the worker", Where: true}
	todo := importspec.Note{Pos: envres.Pos{File: "run.sh", Line: 3, Column: 4}, Text: "b", Todo: true}
	tests := []struct {
		notes, want []importspec.Note
	}{
		{nil, nil},
		{[]importspec.Note{where}, nil},
		// A note repeated in each launch block is listed once.
		{[]importspec.Note{a, where, todo, a, where, todo}, []importspec.Note{a, todo}},
	}
	for _, tc := range tests {
		s := &importspec.Spec{Notes: tc.notes}
		if diff := cmp.Diff(tc.want, s.Listed()); diff != "" {
			t.Errorf("Listed(%v) (-want +got):\n%s", tc.notes, diff)
		}
	}
}

// TestNoteListing: the line `childproof import` lists a note on, and the
// count of notes left to a human.
func TestNoteListing(t *testing.T) {
	tests := []struct {
		n    importspec.Note
		want string
	}{
		{importspec.Note{Pos: envres.Pos{File: "lib/run.sh", Line: 2, Column: 1}, Text: "nohup … & is replaced"}, "lib/run.sh:2:1: note: nohup … & is replaced"},
		{importspec.Note{Pos: envres.Pos{File: "run.sh", Line: 3, Column: 10}, Text: "a conditional:\n  write   it here", Todo: true}, "run.sh:3:10: TODO: a conditional: write it here"},
		// A line's note has column 0, shown as 1.
		{importspec.Note{Pos: envres.Pos{File: "run.sh", Line: 4}, Text: "x"}, "run.sh:4:1: note: x"},
		// A note about the script as a whole is at the script.
		{importspec.Note{Text: "only inherit and env pass"}, "start.sh: note: only inherit and env pass"},
		{importspec.Note{Text: "no worker", Todo: true}, "start.sh: TODO: no worker"},
	}
	for _, tt := range tests {
		if got := tt.n.Listing("start.sh"); got != tt.want {
			t.Errorf("%+v.Listing(start.sh) = %q, want %q", tt.n, got, tt.want)
		}
	}
	todo := importspec.Note{Pos: envres.Pos{File: "run.sh", Line: 3, Column: 4}, Text: "b", Todo: true}
	whereTodo := importspec.Note{Pos: envres.Pos{File: "run.sh", Line: 5}, Text: "w", Todo: true, Where: true}
	note := importspec.Note{Text: "a"}
	for _, tc := range []struct {
		notes []importspec.Note
		want  int
	}{
		{nil, 0},
		{[]importspec.Note{note}, 0},
		// Counted as listed: a repeat once, the where note not.
		{[]importspec.Note{note, todo, whereTodo, todo}, 1},
	} {
		if got := (&importspec.Spec{Notes: tc.notes}).Todos(); got != tc.want {
			t.Errorf("Todos(%v) = %d, want %d", tc.notes, got, tc.want)
		}
	}
}

// TestImportTo: the spec is written atomically where asked (its directory
// made; paths in it relative to that directory) and checked there; for
// stdout it is checked from a scratch file that is gone afterwards.
func TestImportTo(t *testing.T) {
	wd := t.TempDir()
	t.Chdir(wd)
	writeFiles(t, wd, map[string]string{
		"launch.sh": "#!/bin/bash\ncd srv\nexec ./api --port 8000\n",
		"bad.sh":    "#!/bin/bash\nif then\n",
	})
	if err := os.Mkdir(filepath.Join(wd, "srv"), 0o755); err != nil {
		t.Fatal(err)
	}
	ls := func(dir string) []string {
		ents, _ := os.ReadDir(dir)
		var out []string
		for _, e := range ents {
			out = append(out, e.Name())
		}
		return out
	}
	tests := []struct {
		name, output string
		wantDir      string   // the dir attribute written
		wantFiles    []string // wd's entries after
	}{
		{"stdout", "", `"srv"`, []string{"bad.sh", "launch.sh", "srv"}},
		{"file", "deploy/api.hcl", `"../srv"`, []string{"bad.sh", "deploy", "launch.sh", "srv"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			spec, c, err := importspec.ImportTo(context.Background(), "launch.sh", nil, tc.output, importspec.Options{Name: "api"})
			if err != nil {
				t.Fatal(err)
			}
			if !c.OK() || len(c.Lint) != 1 || c.Lint[0].Launch.Name != "api" {
				t.Errorf("Checked OK %v, lint %+v; want launch api passing: %v\n%s", c.OK(), c.Lint, c.Diagnostics, spec.Text)
			}
			if want := "dir = " + tc.wantDir; !strings.Contains(strings.Join(strings.Fields(string(spec.Text)), " "), want) {
				t.Errorf("spec lacks %q:\n%s", want, spec.Text)
			}
			if diff := cmp.Diff(tc.wantFiles, ls(wd)); diff != "" {
				t.Errorf("working directory (-want +got):\n%s", diff)
			}
			if tc.output != "" {
				got, err := os.ReadFile(tc.output)
				if err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(string(spec.Text), string(got)); diff != "" {
					t.Errorf("%s (-want +got):\n%s", tc.output, diff)
				}
			}
		})
	}
	t.Run("errors", func(t *testing.T) {
		_, _, err := importspec.ImportTo(context.Background(), "launch.sh", nil, "", importspec.Options{Name: "no spaces"})
		var ne *importspec.NameError
		if !errors.As(err, &ne) || ne.Name != "no spaces" {
			t.Errorf("bad name: err = %v, want a *NameError", err)
		}
		_, c, err := importspec.ImportTo(context.Background(), "bad.sh", nil, "out/bad.hcl", importspec.Options{})
		var pe *envres.ParseError
		if !errors.As(err, &pe) || c != nil {
			t.Errorf("unparsable: err = %v, checked %v; want a *envres.ParseError and none", err, c)
		}
		if _, err := os.Stat("out"); !os.IsNotExist(err) {
			t.Errorf("unparsable: out/ made (%v)", err)
		}
	})
}
