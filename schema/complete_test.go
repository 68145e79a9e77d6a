package schema

import (
	"testing"

	"github.com/childproof/childproof/internal/testsupport"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

func TestCompleteSpec(t *testing.T) {
	dir := testsupport.WriteTree(t, map[string]string{
		"multi.hcl":      "launch \"api\" {}\nlaunch \"db\" {}\n",
		"one.hcl":        "launch \"web\" {}\n",
		"notes.txt":      "x",
		".hidden.hcl":    "launch \"h\" {}\n",
		"sub/inner.hcl":  "launch \"i\" {}\n",
		"broken.hcl":     "launch \"x\" {\n", // unclosed: still lists x
		"sub/.gitignore": "",
	})
	t.Chdir(dir)
	names := []struct {
		arg  string
		want []string
		ok   bool
	}{
		{"multi.hcl:", []string{"multi.hcl:api", "multi.hcl:db"}, true},
		{"multi.hcl:d", []string{"multi.hcl:db"}, true},
		{"multi.hcl:x", nil, true},
		{"broken.hcl:", []string{"broken.hcl:x"}, true},
		{"sub:", nil, false}, // a directory
		{"missing.hcl:", nil, false},
		{"multi.hcl", nil, false}, // no ':'
		{":api", nil, false},
	}
	for _, c := range names {
		got, ok := CompleteSpecName(c.arg)
		if diff := cmp.Diff(c.want, got, cmpopts.EquateEmpty()); diff != "" || ok != c.ok {
			t.Errorf("CompleteSpecName(%q) = %v, %v; want %v, %v (-want +got):\n%s", c.arg, got, ok, c.want, c.ok, diff)
		}
	}
	files := []struct {
		arg  string
		want []string
	}{
		{"", []string{"broken.hcl", "multi.hcl", "multi.hcl:", "one.hcl", "sub/"}},
		{"m", []string{"multi.hcl", "multi.hcl:"}},
		{".", []string{".hidden.hcl"}},
		{"sub/", []string{"sub/inner.hcl"}},
		{"nothing/", nil},
	}
	for _, c := range files {
		if diff := cmp.Diff(c.want, CompleteSpecFile(c.arg), cmpopts.EquateEmpty()); diff != "" {
			t.Errorf("CompleteSpecFile(%q) (-want +got):\n%s", c.arg, diff)
		}
	}
}
