package schema

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/childproof/childproof/internal/testsupport"
)

// TestDiagnosticsNeverEchoSecrets: a value from env() or file() that fails
// validation is named by its source range, never printed (issue #9).
func TestDiagnosticsNeverEchoSecrets(t *testing.T) {
	const canary = "canary value 7f3e"
	cases := map[string]string{
		"ready.timeout":   `command = ["true"]` + "\n" + `ready { timeout = env("C") }`,
		"dir":             `command = ["true"]` + "\n" + `dir = env("C")`,
		"env_file":        `command = ["true"]` + "\n" + `env_file = env("C")`,
		"worker.comm":     `command = ["true"]` + "\n" + `worker { comm = env("C") }`,
		"worker.exe":      `command = ["true"]` + "\n" + `worker { exe = env("C") }`,
		"ready.http":      `command = ["true"]` + "\n" + `ready { http = env("C") }`,
		"on_stale":        `command = ["true"]` + "\n" + `on_stale = env("C")`,
		"forbid_wrappers": `command = ["true"]` + "\n" + `forbid_wrappers = [env("C")]`,
		"inherit":         `command = ["true"]` + "\n" + `inherit = [env("C")]`,
		"require":         `command = ["true"]` + "\n" + `require = [env("C")]`,
		"secret":          `command = ["true"]` + "\n" + `secret = [env("C")]`,
		"address":         `command = ["true"]` + "\n" + `port "p" { number = 1234` + "\n" + `address = env("C") }`,
		"command[0]":      `command = [env("C")]`,
		"dispatch[0]":     `dispatch = [env("C")]`,
		"attempts":        `command = ["true"]` + "\n" + `attempts = env("C")`,
		"file path":       `command = ["true", file(env("C"))]`,
		"require source":  `command = ["true"]` + "\n" + `inherit = [env("N")]` + "\n" + `require = ["X"]`,
		"alias use":       "command = [\"true\"]\n}\nalias \"A\" {\n  use = env(\"C\")",
	}
	for name, body := range cases {
		t.Run(name, func(t *testing.T) {
			dir := testsupport.WriteTree(t, map[string]string{"s.hcl": "launch \"a\" {\n" + body + "\n}\n"})
			env := map[string]string{"C": canary, "N": "NAME_CANARY_7f3e"}
			_, _, diags := Load(filepath.Join(dir, "s.hcl"), LoadOptions{LookupEnv: lookupFrom(env)})
			if len(diags) == 0 {
				t.Fatal("no diagnostic")
			}
			all := fmt.Sprint(diagLines(diags))
			for _, d := range diags {
				all += d.Summary + " " + d.Detail
			}
			if strings.Contains(all, "7f3e") {
				t.Errorf("a diagnostic echoes the secret value:\n%s", all)
			}
		})
	}
}

func TestNestingBounded(t *testing.T) {
	for _, open := range []string{"(", "[", "{"} {
		deep := "launch \"a\" {\n  command = [\"true\"]\n  attempts = " + strings.Repeat(open, 70_000) + "\n}\n"
		dir := testsupport.WriteTree(t, map[string]string{"s.hcl": deep})
		_, _, diags := Load(filepath.Join(dir, "s.hcl"), LoadOptions{})
		if !diags.HasErrors() || diags[0].Summary != "Nesting too deep" || diags[0].Subject == nil || diags[0].Subject.Start.Line != 3 {
			t.Errorf("%s: diagnostics %v, want Nesting too deep at line 3", open, diagLines(diags))
		}
	}
	ok := "launch \"a\" {\n  command = [\"true\"]\n  attempts = " + strings.Repeat("(", 100) + "1" + strings.Repeat(")", 100) + "\n}\n"
	dir := testsupport.WriteTree(t, map[string]string{"s.hcl": ok})
	if _, _, diags := Load(filepath.Join(dir, "s.hcl"), LoadOptions{}); diags.HasErrors() {
		t.Errorf("100 levels refused: %v", diagLines(diags))
	}
}
