package schema

import (
	"github.com/childproof/childproof/spec"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestMain(m *testing.M) {
	// Load warns about well-known runtime variables of the caller that a
	// launch drops: keep the machine's own out of the other tests.
	for _, kv := range os.Environ() {
		if n, _, _ := strings.Cut(kv, "="); spec.IsRuntimeVar(n) {
			os.Unsetenv(n)
		}
	}
	os.Exit(m.Run())
}

func TestDroppedRuntimeVars(t *testing.T) {
	dir := t.TempDir()
	envFile := filepath.Join(dir, ".env")
	os.WriteFile(envFile, []byte("PYTHONPATH=/srv\n"), 0o644)
	caller := []string{"CUDA_VISIBLE_DEVICES=1", "LD_LIBRARY_PATH=/opt/lib", "NCCL_DEBUG=INFO", "PYTHONPATH=/x", "HF_HOME=/h", "PATH=/bin", "TERM=xterm", "OMP_NUM_THREADS=4"}
	for _, tc := range []struct {
		name string
		l    Launch
		want []string
	}{
		{"default inherit drops them all", Launch{},
			[]string{"CUDA_VISIBLE_DEVICES", "HF_HOME", "LD_LIBRARY_PATH", "NCCL_DEBUG", "OMP_NUM_THREADS", "PYTHONPATH"}},
		{"patterns, env and env file pass some", Launch{Inherit: []string{"PATH", "CUDA_*", "NCCL_*"}, EnvFile: envFile, Env: map[string]string{"HF_HOME": "/y"}},
			[]string{"LD_LIBRARY_PATH", "OMP_NUM_THREADS"}},
		{"star passes everything", Launch{Inherit: []string{"*"}}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if d := cmp.Diff(tc.want, tc.l.DroppedRuntimeVars(caller)); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
}

// TestLoadWarnsDroppedRuntimeVars: check and run show the warning, with
// names only, at the inherit attribute.
func TestLoadWarnsDroppedRuntimeVars(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "s.hcl")
	os.WriteFile(p, []byte("launch \"a\" {\n  command = [\"true\"]\n  inherit = [\"PATH\"]\n}\n"), 0o644)
	environ := func() []string {
		return []string{"CUDA_VISIBLE_DEVICES=secret-canary-1", "LD_LIBRARY_PATH=/opt/secret-canary-2"}
	}
	_, _, diags := Load(p, LoadOptions{Environ: environ})
	if len(diags) != 1 {
		t.Fatalf("diagnostics: %v", diags)
	}
	d := diags[0]
	if d.Summary != "Runtime variables dropped" || d.Subject == nil || d.Subject.Start.Line != 3 {
		t.Errorf("diagnostic %q at %v", d.Summary, d.Subject)
	}
	if !strings.Contains(d.Detail, "CUDA_VISIBLE_DEVICES, LD_LIBRARY_PATH are set") || strings.Contains(d.Detail, "canary") {
		t.Errorf("detail: %s", d.Detail)
	}
	os.WriteFile(p, []byte("launch \"a\" {\n  command = [\"true\"]\n  inherit = [\"PATH\", \"CUDA_*\", \"LD_LIBRARY_PATH\"]\n}\n"), 0o644)
	if _, _, diags := Load(p, LoadOptions{Environ: environ}); len(diags) != 0 {
		t.Errorf("passed variables warned: %v", diags)
	}
}
