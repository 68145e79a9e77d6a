package schema

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseSpecArg(t *testing.T) {
	dir := t.TempDir()
	withColon := filepath.Join(dir, "a:b.hcl")
	if err := os.WriteFile(withColon, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		in     string
		want   SpecArg
		isSpec bool
	}{
		{"spec.hcl", SpecArg{Path: "spec.hcl"}, true},
		{"spec.hcl:api", SpecArg{Path: "spec.hcl", Name: "api"}, true},
		{"dir/spec.hcl:api", SpecArg{Path: "dir/spec.hcl", Name: "api"}, true},
		{"a:b/spec.hcl", SpecArg{Path: "a:b/spec.hcl"}, true},
		{"spec.hcl:", SpecArg{Path: "spec.hcl:"}, false},
		{":api", SpecArg{Path: ":api"}, false},
		{withColon, SpecArg{Path: withColon}, true},
		{withColon + ":web", SpecArg{Path: withColon, Name: "web"}, true},
		// A launch name, and a directory: no spec file.
		{"api", SpecArg{Path: "api"}, false},
		{dir, SpecArg{Path: dir}, false},
	}
	for _, c := range cases {
		if diff := cmp.Diff(c.want, ParseSpecArg(c.in)); diff != "" {
			t.Errorf("ParseSpecArg(%q) (-want +got):\n%s", c.in, diff)
		}
		if got := IsSpecArg(c.in); got != c.isSpec {
			t.Errorf("IsSpecArg(%q) = %v, want %v", c.in, got, c.isSpec)
		}
	}
}

func TestDefaultSpec(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	if got, err := DefaultSpec(); !errors.Is(err, ErrNoDefaultSpec) || got != "" {
		t.Errorf("DefaultSpec() without %s = %q, %v; want ErrNoDefaultSpec", DefaultSpecFile, got, err)
	}
	for _, p := range []string{DefaultSpecFile, filepath.Join("sub", DefaultSpecFile)} {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if got, err := DefaultSpec(); err != nil || got != DefaultSpecFile {
		t.Errorf("DefaultSpec() = %q, %v; want %q", got, err, DefaultSpecFile)
	}
	type in struct {
		Path string
		OK   bool
	}
	for _, c := range []struct {
		dir  string
		want in
	}{
		{"sub", in{filepath.Join("sub", DefaultSpecFile), true}},
		{".", in{DefaultSpecFile, true}},
		{DefaultSpecFile, in{}}, // a file, not a directory
		{"missing", in{}},
		{"/", in{}},
	} {
		p, ok := DefaultSpecIn(c.dir)
		if diff := cmp.Diff(c.want, in{p, ok}); diff != "" {
			t.Errorf("DefaultSpecIn(%q) (-want +got):\n%s", c.dir, diff)
		}
	}
}

func TestExpandSpecArg(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{":api", DefaultSpecFile + ":api"},
		{":", ":"},
		{"spec.hcl:api", "spec.hcl:api"},
		{"api", "api"},
		{"", ""},
	} {
		if got := ExpandSpecArg(c.in); got != c.want {
			t.Errorf("ExpandSpecArg(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}
