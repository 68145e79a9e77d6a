package schema

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
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

// TestDiagnosticsMaskSecretsEverywhere is the generated form of
// TestDiagnosticsNeverEchoSecrets (issue 40 item 4): env() and file() in
// every place the spec language takes an expression (Places, read from
// the schemas), in several forms (whole, inside a path, a list element, a
// map value), with values that are text, a missing path, a directory, a
// script, a non-executable file and one with a quote and a newline. No
// diagnostic, in either loading mode, and no run-time check (CheckRun)
// may hold the value.
func TestDiagnosticsMaskSecretsEverywhere(t *testing.T) {
	const marker = "7f3e"
	dir := t.TempDir()
	vals := filepath.Join(dir, "cny"+marker)
	tree := map[string]string{"cny" + marker + "/script.sh": "#!/bin/sh\n", "cny" + marker + "/plain": "x", "content.txt": "file content cny" + marker}
	for name, body := range tree {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Chmod(filepath.Join(vals, "plain"), 0o644); err != nil {
		t.Fatal(err)
	}
	values := []string{"cny " + marker + " text", filepath.Join(vals, "missing"), vals, filepath.Join(vals, "script.sh"), filepath.Join(vals, "plain"), "cny\"" + marker + "\n\\x"}
	contentFile := strconv.Quote(filepath.Join(dir, "content.txt"))
	forms := []string{
		`env("C")`, `"/nonexist/${env("C")}"`, `"${env("C")}/bin"`, `[env("C")]`, `["/nonexist/${env("C")}"]`,
		`{ K = env("C") }`, `{ K = "/x/${env("C")}" }`, `file(` + contentFile + `)`, `[file(` + contentFile + `)]`,
		`"/nonexist/${file(` + contentFile + `)}"`,
	}
	places := Places()
	if len(places) < 30 {
		t.Fatalf("Places lists %d places", len(places))
	}
	specDir := t.TempDir()
	n := 0
	for _, place := range places {
		if strings.HasSuffix(place, ".") {
			t.Errorf("block %s has no schema in blockSchemas", place)
			continue
		}
		for _, form := range forms {
			src := testsupport.SpecAt(place, form)
			path := filepath.Join(specDir, "s.hcl")
			for _, v := range values {
				for _, nothing := range []bool{false, true} {
					n++
					f, _, diags := Parse([]byte(src), path, LoadOptions{LookupEnv: lookupFrom(map[string]string{"C": v, "PATH": "/usr/bin:/bin"}), LaunchesNothing: nothing, Environ: func() []string { return nil }})
					var all strings.Builder
					for _, d := range diags {
						all.WriteString(d.Summary + "\n" + d.Detail + "\n")
					}
					if f != nil {
						for _, la := range f.Launches {
							if err := la.CheckRun("/usr/bin:/bin", specDir); err != nil {
								all.WriteString(err.Error())
							}
						}
					}
					if strings.Contains(all.String(), marker) {
						t.Errorf("%s = %s with C=%q (launches nothing: %v): a diagnostic shows the value:\n%s", place, form, v, nothing, all.String())
					}
				}
			}
		}
	}
	t.Logf("%d loads", n)
}
