package main

import (
	"os/exec"
	"strings"
	"testing"
)

// TestNoCostlyDeps: packages whose initialisers every command would pay
// for stay out of the binary (go-cmp came in with hclwrite: about 0.7 ms
// of init per command; internal/hcltext writes HCL instead). Tests may
// use them.
func TestNoCostlyDeps(t *testing.T) {
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go toolchain to list the binary's packages")
	}
	out, err := exec.Command(goBin, "list", "-deps", ".").Output()
	if err != nil {
		t.Skipf("go list -deps: %v", err)
	}
	for _, p := range strings.Fields(string(out)) {
		for _, bad := range []string{"github.com/google/go-cmp/", "github.com/hashicorp/hcl/v2/hclwrite"} {
			if strings.HasPrefix(p+"/", bad) {
				t.Errorf("the binary links %s", p)
			}
		}
	}
}
