package export

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestKubectlEnvFile: an env file that kubectl create secret
// --from-env-file reads otherwise than childproof run (quotes kept, a
// " # comment" kept, "export NAME", a line without '=') is refused with
// the line named and no value; a plain one is exported.
func TestKubectlEnvFile(t *testing.T) {
	for _, c := range []struct {
		name, file, want string
	}{
		{"plain", "# comment\nDB_HOST=db\n\n  LOG_LEVEL=info\r\n", ""},
		{"quoted", "DB_HOST=db\nDB_PASSWORD=\"x-secret\"\n", "env_file line 2 (DB_PASSWORD)"},
		{"comment after value", "LOG_LEVEL=info # the default\n", "env_file line 1 (LOG_LEVEL)"},
		{"export", "export DB_HOST=db\n", "env_file line 1"},
		{"trailing blanks", "LOG_LEVEL=info  \n", "env_file line 1 (LOG_LEVEL)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			spec := "launch \"api\" {\n  command  = [\"/usr/bin/srv\"]\n  env_file = \".env\"\n}\n"
			for name, text := range map[string]string{"spec.hcl": spec, ".env": c.file} {
				if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			l := load(t, dir, "api")
			o := Options{Engine: Kubernetes, Image: "img"}
			if c.want == "" {
				render(t, l, o)
				return
			}
			_, err := Render(t.Context(), l, o)
			var ue *UnsupportedError
			if !errors.As(err, &ue) || ue.Feature != c.want || !strings.Contains(err.Error(), "kubectl") {
				t.Fatalf("Render = %v, want an UnsupportedError for %q", err, c.want)
			}
			if strings.Contains(err.Error(), "x-secret") {
				t.Errorf("the error holds the value: %v", err)
			}
		})
	}
}
