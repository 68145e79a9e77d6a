package schema

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestLaunchLabels(t *testing.T) {
	for _, tc := range []struct {
		name, src string
		want      []string
	}{
		{"none", `variable "x" {}`, nil},
		{"one", `launch "api" { command = ["true"] }`, []string{"api"}},
		{"order and once", "launch \"b\" {}\nlaunch \"a\" {}\nlaunch \"b\" {}\n", []string{"b", "a"}},
		{"unevaluated", `launch "api" { env = { K = env("UNSET_HERE") } }`, []string{"api"}},
		{"nested and unlabelled skipped", "launch {}\nlaunch \"x\" \"y\" {}\nother \"z\" { launch \"w\" {} }\n", nil},
		{"unclosed block", "launch \"ok\" {}\nlaunch \"open\" {\n", []string{"ok", "open"}},
		{"too big", `launch "api" {}` + "\n#" + strings.Repeat("x", MaxFileSize), nil},
		{"nested too deep", `launch "api" {}` + "\nx = " + strings.Repeat("[", 70000), nil},
		{"expression too deep", `launch "api" {}` + "\nx = " + strings.Repeat("-", 400_000) + "1\n", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := LaunchLabels([]byte(tc.src), "childproof.hcl")
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("LaunchLabels (-want +got):\n%s", diff)
			}
		})
	}
}
