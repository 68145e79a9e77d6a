package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/childproof/childproof/internal/testsupport"
	"github.com/childproof/childproof/lintreport"
	"github.com/childproof/childproof/schema"
)

// TestCanaryPlaces puts env() in every place the spec language takes an
// expression (schema.Places, generated from the schemas, not a hand list)
// — whole and inside a path — with values that are a missing path and a
// script, and runs check in every format (issue 40 item 4: a worker exe
// built from env() printed the value in text, json, sarif and github). No
// output may hold the value.
func TestCanaryPlaces(t *testing.T) {
	const marker = "cny9d1c"
	dir := t.TempDir()
	vals := filepath.Join(dir, marker)
	if err := os.MkdirAll(vals, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(vals, "script.sh"), []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("CHILDPROOF_STATE_DIR", filepath.Join(dir, "state"))
	specs := t.TempDir()
	runs := 0
	for _, v := range []string{filepath.Join(vals, "missing"), filepath.Join(vals, "script.sh")} {
		t.Setenv("SRC_C", v)
		for i, place := range schema.Places() {
			for j, form := range []string{`env("SRC_C")`, `"/nonexist/${env("SRC_C")}"`} {
				path := filepath.Join(specs, place+string(rune('a'+j))+".hcl")
				if err := os.WriteFile(path, []byte(testsupport.SpecAt(place, form)), 0o644); err != nil {
					t.Fatal(err)
				}
				for _, f := range lintreport.Formats {
					var stdout, stderr bytes.Buffer
					code := run(context.Background(), []string{"check", "--format", f, path}, nil, &stdout, &stderr)
					runs++
					if out := stdout.String() + stderr.String(); strings.Contains(out, marker) {
						t.Errorf("place %d %s = %s, SRC_C=%s: check --format %s (exit %d) shows the value:\n%s", i, place, form, v, f, code, out)
					}
				}
			}
		}
	}
	t.Logf("%d checks", runs)
}
