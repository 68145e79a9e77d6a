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
