package envres

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// at is a finding reduced to what the table tests compare.
type at struct {
	Rule string
	File string
	Line int
	Vars string
}

// writeTree writes files (executable) below a new temporary directory and
// returns it.
func writeTree(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, body := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func lintFiles(t *testing.T, files map[string]string, cfg Config) (*Result, error) {
	t.Helper()
	cfg.Dir = writeTree(t, files)
	if cfg.Scripts == nil && cfg.Argv == nil {
		cfg.Scripts = []string{"run.sh"}
	}
	return Lint(context.Background(), cfg)
}

func reduce(res *Result) []at {
	out := []at{}
	for _, f := range res.Findings {
		v := ""
		for i, n := range f.Variables {
			if i > 0 {
				v += ","
			}
			v += n
		}
		out = append(out, at{f.Rule, f.File, f.Line, v})
	}
	return out
}

var apiTest = []Override{{Name: "API_MODE", Value: "test", Known: true}}

// lintCase is one row of a lint table test: files, configuration and the
// findings wanted.
type lintCase struct {
	name  string
	files map[string]string
	cfg   Config
	want  []at
}

// runLintCases lints each case and compares its findings with want.
func runLintCases(t *testing.T, cases []lintCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res, err := lintFiles(t, tc.files, tc.cfg)
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tc.want, reduce(res)); d != "" {
				t.Errorf("findings (-want +got):\n%s", d)
			}
		})
	}
}

func TestLintTable(t *testing.T) {
	const sh = "#!/bin/bash\n"
	for _, tc := range []struct {
		name  string
		files map[string]string
		cfg   Config
		want  []at
	}{
		{"clean", map[string]string{"run.sh": sh + "exec ./api --host 127.0.0.1\n"}, Config{Overrides: apiTest}, []at{}},
		{"allexport load", map[string]string{"run.sh": sh + "set -a\n. ./.env\nexec ./api\n", ".env": "API_MODE=prod\nA=1\n"},
			Config{Overrides: apiTest}, []at{{"env-file-clobber", "run.sh", 3, "API_MODE"}, {"env-file-load", "run.sh", 3, "A"}}},
		{"same value", map[string]string{"run.sh": sh + "set -a\n. ./.env\nexec ./api\n", ".env": "API_MODE=test\n"},
			Config{Overrides: apiTest}, []at{}},
		{"restored", map[string]string{"run.sh": sh + "s=$API_MODE\nset -a; . ./.env; set +a\nAPI_MODE=$s\nexec ./api\n", ".env": "API_MODE=prod\n"},
			Config{Overrides: apiTest}, []at{}},
		{"exec chain", map[string]string{"run.sh": sh + "exec bash b/c.sh\n", "b/c.sh": sh + "cd \"$(dirname \"$0\")\"\nset -a; . ./.env; set +a\nexec ./api\n", "b/.env": "API_MODE=prod\n"},
			Config{Overrides: apiTest}, []at{{"env-file-clobber", "b/c.sh", 3, "API_MODE"}}},
		{"require only", map[string]string{"run.sh": sh + "export KEY=$(cat key)\nexec ./api\n"},
			Config{Require: []string{"KEY"}}, []at{}},
		{"require emptied", map[string]string{"run.sh": sh + "export KEY=\nexec ./api\n"},
			Config{Require: []string{"KEY"}}, []at{{"assign-clobber", "run.sh", 2, "KEY"}}},
		{"argv env -i", nil, Config{Argv: []string{"env", "-i", "./api", "--addr", "0.0.0.0:8080"}, Require: []string{"KEY"}},
			[]at{{"env-reset", CommandFile, 1, "KEY"}, {"all-interfaces", CommandFile, 1, ""}}},
		{"argv bash -lc", nil, Config{Argv: []string{"bash", "-lc", "exec ./api"}},
			[]at{{"login-shell", CommandFile, 1, ""}}},
		{"argv script", map[string]string{"run.sh": sh + "export API_MODE=prod\nexec ./api\n"}, Config{Argv: []string{"./run.sh"}, Overrides: apiTest},
			[]at{{"assign-clobber", "run.sh", 2, "API_MODE"}}},
		{"aliases from config", map[string]string{"run.sh": sh + "export MY_ALIAS=1\nexec ./api\n"}, Config{Aliases: map[string]string{"MY_ALIAS": "REAL"}},
			[]at{{"noop-alias", "run.sh", 2, "MY_ALIAS"}}},
		{"two scripts", map[string]string{"run.sh": sh + "unset API_MODE\nexec ./a\n", "two.sh": sh + "export API_MODE=x\nexec ./b\n"},
			Config{Scripts: []string{"two.sh", "run.sh"}, Overrides: apiTest},
			[]at{{"unset-protected", "run.sh", 2, "API_MODE"}, {"assign-clobber", "two.sh", 2, "API_MODE"}}},
		{"merge of branches", map[string]string{"run.sh": sh + "if x; then export API_MODE=a; else export API_MODE=b; fi\nexec ./api\n"},
			Config{Overrides: apiTest}, []at{{"assign-clobber", "run.sh", 2, "API_MODE"}, {"assign-clobber", "run.sh", 2, "API_MODE"}}},
		{"exec in one branch", map[string]string{"run.sh": sh + "if x; then export API_MODE=a; exec ./one; fi\nexec ./api\n"},
			Config{Overrides: apiTest}, []at{{"assign-clobber", "run.sh", 2, "API_MODE"}}},
		// An option that wants a value it lacks ends the line (this panicked).
		// A wrapper with no command runs no worker: no finding (and no crash).
		{"sudo -u at the end", map[string]string{"run.sh": sh + "sudo -u\nexec ./api\n"},
			Config{Overrides: apiTest}, []at{}},
		{"runuser -u at the end", map[string]string{"run.sh": sh + "runuser -u\nexec ./api\n"},
			Config{Overrides: apiTest}, []at{}},
		{"sudo assignments and su -c", map[string]string{"run.sh": sh + "sudo API_MODE=test -u app ./x\nsu -m app --command='exec ./api'\n"},
			Config{Overrides: apiTest}, []at{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := lintFiles(t, tc.files, tc.cfg)
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tc.want, reduce(res)); d != "" {
				t.Errorf("findings (-want +got):\n%s", d)
			}
		})
	}
}

func TestLintErrors(t *testing.T) {
	for _, tc := range []struct {
		name  string
		files map[string]string
		cfg   Config
		want  string
	}{
		{"parse", map[string]string{"run.sh": "#!/bin/bash\nif true; then\n"}, Config{}, "run.sh:2:10: "},
		{"binary", map[string]string{"run.sh": "\x7fELF\x02\x01\x01\x00\x00"}, Config{}, "run.sh:1:8: binary file"},
		{"missing", map[string]string{}, Config{}, "run.sh: cannot read"},
		{"nested parse", map[string]string{"run.sh": "#!/bin/bash\nexec bash x.sh\n", "x.sh": "case\n"}, Config{}, "x.sh:"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := lintFiles(t, tc.files, tc.cfg)
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("error %v, want a *ParseError", err)
			}
			if got := err.Error(); len(got) < len(tc.want) || got[:len(tc.want)] != tc.want {
				t.Errorf("error %q, want prefix %q", got, tc.want)
			}
		})
	}
	for _, cfg := range []Config{{Overrides: []Override{{Name: "1X"}}}, {Require: []string{"1X"}}} {
		_, err := Lint(context.Background(), cfg)
		var ce *ConfigError
		if !errors.Is(err, ErrBadConfig) || !errors.As(err, &ce) {
			t.Fatalf("bad name: %v, want a *ConfigError wrapping ErrBadConfig", err)
		}
		if diff := cmp.Diff(`invalid configuration: invalid variable name "1X"`, ce.Problem); diff != "" {
			t.Errorf("Problem (-want +got):\n%s", diff)
		}
		if diff := cmp.Diff(`envres: invalid configuration: invalid variable name "1X"`, err.Error()); diff != "" {
			t.Errorf("Error() (-want +got):\n%s", diff)
		}
	}
}

func TestLintCanceled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a.sh"), []byte(genDispatch(3000, 1)), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := Lint(ctx, Config{Dir: dir, Scripts: []string{"a.sh"}}); !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled", err)
	}
}

func TestRulesDocumented(t *testing.T) {
	seen := map[string]bool{}
	for _, r := range Rules() {
		if r.Name == "" || r.Doc == "" || r.Short == "" || (r.Severity != SeverityError && r.Severity != SeverityWarning) {
			t.Errorf("rule %+v incomplete", r)
		}
		if seen[r.Name] {
			t.Errorf("duplicate rule %s", r.Name)
		}
		seen[r.Name] = true
		if RuleByName(r.Name) != r {
			t.Errorf("RuleByName(%s)", r.Name)
		}
	}
	if len(seen) != 14 {
		t.Errorf("%d rules, the contract has 13 and parse-error", len(seen))
	}
	doc, err := os.ReadFile("../docs/lint.md")
	if err != nil {
		t.Fatal(err)
	}
	for name := range seen {
		if !strings.Contains(string(doc), "| `"+name+"` |") {
			t.Errorf("docs/lint.md: no row for rule %s", name)
		}
	}
}
