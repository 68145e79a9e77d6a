package schema

import (
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
