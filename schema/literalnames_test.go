package schema

import (
	"strings"
	"testing"
)

// TestLiteralNames: env() or file() where a name is expected is an error
// at the call's range, and the value never appears in a diagnostic, with
// the caller's value set or not, for commands that launch and that do not.
func TestLiteralNames(t *testing.T) {
	const canary = "CANARY-name-4f1e"
	tests := []struct {
		name, body string
		wantLine   int
		wantCol    int
	}{
		{"inherit", `inherit = [env("SX")]`, 3, 14},
		{"secret", `secret = ["A", env("SX")]`, 3, 18},
		{"require", `require = [env("SX")]`, 3, 14},
		{"depends_on", `depends_on = [env("SX")]`, 3, 17},
		{"env key", `env = { "${env("SX")}" = "v" }`, 3, 14},
		{"env key file", `env = { (file("f")) = "v" }`, 3, 12},
		{"env name of env", `env = { B = env(env("SX")) }`, 3, 19},
		{"command env of env", `dispatch = ["d.sh", env(env("SX"))]`, 3, 27},
	}
	for _, tt := range tests {
		for _, nothing := range []bool{false, true} {
			for _, set := range []bool{false, true} {
				t.Run(tt.name, func(t *testing.T) {
					src := "launch \"a\" {\n  command = [\"true\"]\n  " + tt.body + "\n}\n"
					if strings.HasPrefix(tt.body, "dispatch") {
						src = "launch \"a\" {\n\n  " + tt.body + "\n}\n"
					}
					lookup := func(n string) (string, bool) {
						if set && n == "SX" {
							return canary, true
						}
						return "", false
					}
					_, _, diags := Parse([]byte(src), "t.hcl", LoadOptions{LookupEnv: lookup, LaunchesNothing: nothing})
					if !diags.HasErrors() {
						t.Fatalf("no error for %s", tt.body)
					}
					if strings.Contains(diags.Error(), canary) {
						t.Fatalf("diagnostics show the value: %v", diags)
					}
					if !set && !nothing {
						return // env("SX") unset where it launches: that error comes first
					}
					found := false
					for _, d := range diags {
						if d.Subject != nil && d.Subject.Start.Line == tt.wantLine && d.Subject.Start.Column == tt.wantCol {
							found = true
						}
					}
					if !found {
						t.Errorf("no diagnostic at %d:%d: %v", tt.wantLine, tt.wantCol, diags)
					}
				})
			}
		}
	}
}
