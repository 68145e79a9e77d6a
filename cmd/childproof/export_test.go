package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestExportedExamples checks that the exported files under
// examples/03-dispatch-resource-env/exported are what export writes now:
// make demo generates them (examples/demo.sh, same arguments).
func TestExportedExamples(t *testing.T) {
	const x = "../../examples/03-dispatch-resource-env"
	common := []string{"--dir", "/opt/childproof/examples/03-dispatch-resource-env", "--childproof", "/usr/local/bin/childproof"}
	for file, args := range map[string][]string{
		"resource-env-fixed.service":   {"--to", "systemd"},
		"resource-env-fixed.k8s.yaml":  {"--to", "k8s", "--image", "registry.example/mock-llm:demo", "--childproof-image", "registry.example/childproof:demo"},
		"resource-env-fixed.sbatch":    {"--to", "slurm"},
		"resource-env-fixed.nomad.hcl": {"--to", "nomad"},
	} {
		t.Run(file, func(t *testing.T) {
			want, err := os.ReadFile(filepath.Join(x, "exported", file))
			if err != nil {
				t.Fatal(err)
			}
			var stdout, stderr bytes.Buffer
			argv := append([]string{"export", x + "/childproof.hcl:resource-env-fixed"}, append(args, common...)...)
			if code := run(context.Background(), argv, nil, &stdout, &stderr); code != 0 {
				t.Fatalf("exit %d: %s", code, stderr.String())
			}
			if diff := cmp.Diff(string(want), stdout.String()); diff != "" {
				t.Errorf("%s is stale; run make demo (-committed +now):\n%s", file, diff)
			}
		})
	}
}

// TestExportOptionText checks that export words the options Render
// refuses (an *export.OptionError) with the command's flags.
func TestExportOptionText(t *testing.T) {
	spec := filepath.Join(t.TempDir(), "spec.hcl")
	if err := os.WriteFile(spec, []byte("launch \"api\" {\n  command = [\"/bin/sleep\", \"1\"]\n}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--to", "docker"}, `unknown engine "docker": --to takes systemd, k8s, slurm, nomad`},
		{[]string{"--to", "systemd", "--dir", "rel"}, `--dir "rel": must be an absolute path on the target`},
		{[]string{"--to", "k8s", "--image", "x", "--kind", "job"}, `--kind "job": want deployment or pod`},
		{[]string{"--to", "k8s"}, `--to k8s needs --image IMAGE: the container image that holds /bin/sleep`},
	} {
		var stdout, stderr bytes.Buffer
		argv := append([]string{"export", spec + ":api"}, tc.args...)
		code := run(context.Background(), argv, nil, &stdout, &stderr)
		if diff := cmp.Diff("childproof: error: "+tc.want+"\n", stderr.String()); code != 2 || diff != "" {
			t.Errorf("%v: exit %d, stderr (-want +got):\n%s", tc.args, code, diff)
		}
	}
}
