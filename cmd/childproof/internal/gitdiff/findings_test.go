package gitdiff

import (
	"path/filepath"
	"testing"

	"github.com/childproof/childproof/envres"
	"github.com/google/go-cmp/cmp"
)

func TestFindings(t *testing.T) {
	root := t.TempDir()
	c := &Changes{Root: root, Files: map[string][]Span{
		"run.sh":   {{From: 3, To: 4}},
		"lib.sh":   {{From: 10, To: 10}},
		".env":     {{From: 1, To: 1}},
		"new.sh":   nil, // untracked: every line
		"other.sh": {{From: 99, To: 99}},
	}}
	at := func(file string, line int) envres.Pos { return envres.Pos{File: file, Line: line} }
	find := func(rule, msg string, p envres.Pos) envres.Finding {
		return envres.Finding{Rule: rule, Pos: p, Message: msg}
	}
	onLine := find("login-shell", "on a changed line", at("run.sh", 3))
	offLine := find("login-shell", "on an unchanged line", at("run.sh", 1))
	viaChain := find("env-activate", "reached through a changed line", at("other.sh", 1))
	viaChain.Chain = []envres.Pos{at("lib.sh", 10), at("other.sh", 1)}
	untracked := find("nohup", "in a new file", at("new.sh", 7))
	parse := find(envres.ParseErrorRule.Name, "does not parse", at("other.sh", 5))
	envFile := find("env-file-clobber", "loads .env", at("run.sh", 1))
	envFile.Reads = []envres.FileRead{{Path: filepath.Join(root, ".env"), Shown: ".env"}}
	absOutside := find("login-shell", "outside the root", at("/elsewhere/run.sh", 3))
	res := &envres.Result{Findings: []envres.Finding{onLine, offLine, viaChain, untracked, parse, envFile, absOutside}}

	got := c.Findings(res, root)
	wantEnvFile := envFile
	wantEnvFile.Message = "loads .env (.env changed since the --diff-base revision)"
	want := []envres.Finding{onLine, viaChain, untracked, parse, wantEnvFile}
	if diff := cmp.Diff(want, got.Findings); diff != "" {
		t.Errorf("Findings (-want +got):\n%s", diff)
	}
	if res.Findings[5].Message != "loads .env" {
		t.Errorf("res changed: %q", res.Findings[5].Message)
	}
	if got := c.Findings(&envres.Result{}, root).Findings; got == nil || len(got) != 0 {
		t.Errorf("no findings: got %#v, want an empty list (JSON [])", got)
	}
}
