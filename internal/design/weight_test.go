package design

import (
	"go/build"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// heavy are the modules a Go program that builds a launch in Go and starts
// it (packages spec, launcher, launchertest) must not link: the HCL
// loader's (hcl, go-cty), the spec file's struct validator, the schema
// checks of the lint formats and the analysis tools.
var heavy = []string{
	"github.com/hashicorp/hcl", "github.com/zclconf/go-cty", "github.com/go-playground/validator",
	"github.com/santhosh-tekuri/jsonschema", "golang.org/x/tools",
}

// TestLibraryLinksLight follows every module package that launchertest
// (and so launcher, group, verify, spec) imports, on Linux, and fails on
// one that imports a heavy module or package schema, the HCL loader.
func TestLibraryLinksLight(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	ctx := build.Default
	ctx.GOOS, ctx.GOARCH = "linux", "amd64"
	seen := map[string]bool{}
	var visit func(rel string, via []string)
	visit = func(rel string, via []string) {
		if seen[rel] {
			return
		}
		seen[rel] = true
		if rel == "schema" {
			t.Errorf("%s imports package schema (HCL): %s", via[0], strings.Join(append(via, rel), " → "))
			return
		}
		p, err := ctx.ImportDir(filepath.Join(root, rel), 0)
		if err != nil {
			t.Fatalf("%s: %v", rel, err)
		}
		for _, im := range p.Imports {
			if dep, ok := strings.CutPrefix(im, module); ok {
				visit(dep, append(slices.Clip(via), rel))
				continue
			}
			for _, h := range heavy {
				if strings.HasPrefix(im, h) {
					t.Errorf("%s imports %s: %s", rel, im, strings.Join(append(via, rel), " → "))
				}
			}
		}
	}
	visit("launcher/launchertest", nil)
	for _, want := range []string{"spec", "launcher", "launcher/group", "verify"} {
		if !seen[want] {
			t.Errorf("launchertest no longer reaches %s: the test looks at the wrong packages", want)
		}
	}
}
