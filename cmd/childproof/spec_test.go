package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestLoadLaunch(t *testing.T) {
	dir := t.TempDir()
	multi := filepath.Join(dir, "multi.hcl")
	one := filepath.Join(dir, "one.hcl")
	os.WriteFile(multi, []byte("launch \"a\" {\n  command = [\"true\"]\n}\nlaunch \"b\" {\n  command = [\"true\"]\n}\n"), 0o644)
	os.WriteFile(one, []byte("launch \"only\" {\n  command = [\"true\"]\n}\n"), 0o644)
	var stdout, stderr bytes.Buffer
	a := &app{stdout: &stdout, stderr: &stderr, format: "text"}
	ctx := context.Background()

	if _, l, err := a.loadLaunch(ctx, one, nil); err != nil || l.Name != "only" {
		t.Errorf("single launch: %v, %v", l, err)
	}
	if _, l, err := a.loadLaunch(ctx, multi+":b", nil); err != nil || l.Name != "b" {
		t.Errorf("SPEC:NAME: %v, %v", l, err)
	}
	_, _, err := a.loadLaunch(ctx, multi, nil)
	var ee *exitError
	if !errors.As(err, &ee) || ee.code != exitUsage || !strings.Contains(err.Error(), "a, b") || !strings.Contains(ee.hint, ":a") {
		t.Errorf("several launches without NAME: %#v", err)
	}
	if _, ls, err := a.loadLaunches(ctx, multi, nil); err != nil || len(ls) != 2 {
		t.Errorf("loadLaunches: %d launches, %v", len(ls), err)
	}
	if _, _, err := a.loadLaunches(ctx, multi+":c", nil); !errors.As(err, &ee) || ee.code != exitUsage {
		t.Errorf("unknown NAME: %v", err)
	}
	stderr.Reset()
	if _, _, err := a.loadLaunch(ctx, filepath.Join(dir, "missing.hcl"), nil); !errors.As(err, &ee) || ee.code != exitUsage || ee.err != nil {
		t.Errorf("missing spec: %v", err)
	}
	if !strings.HasPrefix(stderr.String(), "childproof: error: cannot read spec: ") || strings.Count(stderr.String(), "\n") != 1 {
		t.Errorf("missing spec stderr: %q", stderr.String())
	}
}
