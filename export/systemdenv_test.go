package export

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/childproof/childproof/internal/testsupport"
	"github.com/google/go-cmp/cmp"
)

// TestSystemdEnvFile: testdata/systemd-envfile/want.json is what systemd
// 252 set for each line of sample.env, as a unit's env printed it (measured
// in a booted systemd under systemd-nspawn; export/enginetest checks the
// same files there on every run).
func TestSystemdEnvFile(t *testing.T) {
	sample, err := os.ReadFile("testdata/systemd-envfile/sample.env")
	if err != nil {
		t.Fatal(err)
	}
	wantJSON, err := os.ReadFile("testdata/systemd-envfile/want.json")
	if err != nil {
		t.Fatal(err)
	}
	var want map[string]string
	if err := json.Unmarshal(wantJSON, &want); err != nil {
		t.Fatal(err)
	}
	got, ignored := systemdEnvFile(string(sample))
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("(-systemd +parser):\n%s", d)
	}
	if d := cmp.Diff([]string{"export C"}, ignored); d != "" {
		t.Errorf("ignored (-want +got):\n%s", d)
	}
}

func TestSystemdRefusesEnvFileDialect(t *testing.T) {
	for _, tc := range []struct{ env, want string }{
		{"LOG_LEVEL=info # the level\n", `systemd cannot express env_file line 1 (LOG_LEVEL): `},
		{"A=1\nexport LOG_LEVEL=info\n", `env_file line 2 (LOG_LEVEL)`},
	} {
		dir := testsupport.WriteTree(t, map[string]string{".env": tc.env, "spec.hcl": `launch "a" {
  command  = ["/bin/sleep", "1"]
  env_file = ".env"
}`})
		_, err := Render(t.Context(), load(t, dir, "a"), Options{Engine: Systemd})
		var ue *UnsupportedError
		if !asUnsupported(err, &ue) || ue.Part != "env_file" || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "info") {
			t.Errorf("%q: err = %v", tc.env, err)
		}
	}
	// What both read alike passes.
	dir := testsupport.WriteTree(t, map[string]string{".env": "# c\nA=1\nB=\"two words\"\n\nC='x # y'\n", "spec.hcl": `launch "a" {
  command  = ["/bin/sleep", "1"]
  env_file = ".env"
}`})
	render(t, load(t, dir, "a"), Options{Engine: Systemd})
}
