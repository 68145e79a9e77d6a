package enginetest

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/childproof/childproof/launcher/launchertest"
)

const slurmCanary = "canary-slurm-KEY-5e1d0c"

// slurmSpec is the purpose-made spec: a server with a secret (an env()
// with a default, which a job must not fall back to), a GPU job whose
// dispatch prints what SLURM bound to its step, a launch without secrets,
// and a launch whose variable no job here sets (it must not matter).
func slurmSpec(mock string) string {
	return fmt.Sprintf(`variable "port" {
  default = 1
}
launch "api" {
  command = [%[1]q, "--addr", "127.0.0.1:${var.port}"]
  env     = { MOCK_LLM_KEY = env("MOCK_LLM_KEY", "demo-key") }
  require = ["MOCK_LLM_KEY"]
  worker { comm = "mock-llm" }
  port "http" {
    number = var.port
  }
  ready { http = "/healthz" }
}
launch "gpu" {
  dispatch = ["gpu.sh", "${var.port}"]
  env      = { MOCK_LLM_KEY = "not-a-secret" }
  worker { comm = "mock-llm" }
  port "http" {
    number = var.port
  }
  slurm { gres = "gpu:1" }
}
launch "plain" {
  command = [%[1]q, "--addr", "127.0.0.1:${var.port}"]
  env     = { MOCK_LLM_KEY = "not-a-secret" }
  worker { comm = "mock-llm" }
  port "http" {
    number = var.port
  }
}
launch "other" {
  command = ["/bin/true"]
  env     = { X = env("CHILDPROOF_ENGINETEST_NEVER_SET") }
}
`, mock)
}

const gpuScript = `#!/bin/bash
echo "gpu: CUDA_VISIBLE_DEVICES=${CUDA_VISIBLE_DEVICES-unset} ROCR_VISIBLE_DEVICES=${ROCR_VISIBLE_DEVICES-unset} GPU_DEVICE_ORDINAL=${GPU_DEVICE_ORDINAL-unset} SLURM_JOB_ID=${SLURM_JOB_ID-unset}"
exec %s --addr "127.0.0.1:$1"
`

// TestSlurm submits exported sbatch scripts to a real single-node cluster
// (one cluster for every case: bring-up costs seconds) and judges each job
// by slurmctld's record (scontrol show job) and the job's output.
func TestSlurm(t *testing.T) {
	c := startSlurm(t)
	proj := t.TempDir()
	if err := os.Chmod(proj, 0o755); err != nil {
		t.Fatal(err)
	}
	writeFiles(t, proj, map[string]string{"spec.hcl": slurmSpec(mockLLM), "gpu.sh": fmt.Sprintf(gpuScript, mockLLM)})
	spec := filepath.Join(proj, "spec.hcl")
	script := func(name string) string {
		return export(t, "--to", "slurm", spec+":"+name, "--childproof", bin)
	}
	key := "MOCK_LLM_KEY=" + slurmCanary
	noCanary := func(t *testing.T, id string) {
		t.Helper()
		if strings.Contains(c.output(id), slurmCanary) {
			t.Errorf("job %s's output holds the secret's value", id)
		}
	}

	t.Run("example 03", func(t *testing.T) {
		// The shipped example, copied with its own port: .env first, the
		// overrides over it, a dispatch script, the key from the job.
		port := launchertest.FreePort(t)
		x := copyExample03(t, port)
		id := c.submit(t, export(t, "--to", "slurm", x+"/childproof.hcl:resource-env-fixed", "--childproof", bin), []string{key}, nil, nil, "--var", fmt.Sprintf("port=%d", port))
		// run prints the verdict line, then one line per check.
		c.waitOutput(t, id, `(?ms)^verified resource-env-fixed.*HF_HUB_ENABLE_HF_TRANSFER present, matches`, 90*time.Second)
		if st, ec := c.cancel(t, id); st != "CANCELLED" {
			t.Errorf("after scancel: %s %s", st, ec)
		}
		portFree(t, port, 20*time.Second)
		noCanary(t, id)
	})

	t.Run("two jobs of one launch on one node", func(t *testing.T) {
		// Each step gets its own state dir (job and step id): no lock is
		// shared. Before, the second exited 6.
		s := script("api")
		p1, p2 := launchertest.FreePort(t), launchertest.FreePort(t)
		j1 := c.submit(t, s, []string{key}, nil, nil, "--var", fmt.Sprintf("port=%d", p1))
		j2 := c.submit(t, s, []string{key}, nil, nil, "--var", fmt.Sprintf("port=%d", p2))
		for _, id := range []string{j1, j2} {
			c.waitOutput(t, id, `(?ms)^verified api.*MOCK_LLM_KEY present`, 90*time.Second)
		}
		for _, id := range []string{j1, j2} {
			if st, _ := c.jobState(id); st != "RUNNING" {
				t.Errorf("job %s is %s while the other runs, want RUNNING", id, st)
			}
			// Each step's own state dir, keyed by job and step id.
			sd := filepath.Join(c.dir, "tmp", fmt.Sprintf("childproof-%d", os.Geteuid()), "slurm-"+id+".0", "records")
			if _, err := os.Stat(sd); err != nil {
				t.Errorf("job %s: no state dir of its own: %v", id, err)
			}
		}
		// scancel (SIGTERM to the step, then SIGKILL) and scancel -s KILL
		// both leave nothing on the port.
		if st, _ := c.cancel(t, j1); st != "CANCELLED" {
			t.Errorf("job %s after scancel: %s", j1, st)
		}
		if st, _ := c.cancel(t, j2, "-s", "KILL"); st != "CANCELLED" {
			t.Errorf("job %s after scancel -s KILL: %s", j2, st)
		}
		portFree(t, p1, 20*time.Second)
		portFree(t, p2, 20*time.Second)
		noCanary(t, j1)
		noCanary(t, j2)
	})

	t.Run("missing secret fails before the step", func(t *testing.T) {
		// The spec's env() default ("demo-key") is not used by a job.
		id := c.submit(t, script("api"), nil, []string{"MOCK_LLM_KEY"}, nil, "--var", fmt.Sprintf("port=%d", launchertest.FreePort(t)))
		st, ec := c.wait(t, id, 60*time.Second)
		out := c.output(id)
		if st != "FAILED" || ec != "2:0" || !strings.Contains(out, "not in the job's environment: MOCK_LLM_KEY") || strings.Contains(out, "verified") {
			t.Errorf("job %s: %s %s\n%s", id, st, ec, out)
		}
	})

	t.Run("export NONE", func(t *testing.T) {
		// SBATCH_EXPORT=NONE: the secret does not arrive (said, exit 2)…
		id := c.submit(t, script("api"), []string{key, "SBATCH_EXPORT=NONE"}, nil, nil, "--var", fmt.Sprintf("port=%d", launchertest.FreePort(t)))
		st, ec := c.wait(t, id, 60*time.Second)
		if out := c.output(id); st != "FAILED" || ec != "2:0" || !strings.Contains(out, "with --export=NONE submit with --export=") {
			t.Errorf("job %s: %s %s\n%s", id, st, ec, out)
		}
		// …and a launch without secrets runs: an absolute childproof and
		// srun --export=ALL (the step would otherwise have no PATH).
		port := launchertest.FreePort(t)
		id = c.submit(t, script("plain"), []string{"SBATCH_EXPORT=NONE"}, nil, nil, "--var", fmt.Sprintf("port=%d", port))
		c.waitOutput(t, id, `(?m)^verified plain`, 90*time.Second)
		if st, _ := c.cancel(t, id); st != "CANCELLED" {
			t.Errorf("after scancel: %s", st)
		}
		portFree(t, port, 20*time.Second)
	})

	t.Run("stale listener", func(t *testing.T) {
		// A process the job did not start holds the port: the step exits
		// 4 naming it, and the job fails with that code.
		port := launchertest.FreePort(t)
		ln, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", port))
		if err != nil {
			t.Fatal(err)
		}
		defer ln.Close()
		id := c.submit(t, script("api"), []string{key}, nil, nil, "--var", fmt.Sprintf("port=%d", port))
		st, ec := c.wait(t, id, 90*time.Second)
		out := c.output(id)
		if st != "FAILED" || ec != "4:0" || !strings.Contains(out, fmt.Sprintf("pid %d", os.Getpid())) {
			t.Errorf("job %s: %s %s\n%s", id, st, ec, out)
		}
	})

	t.Run("gpu gres reaches the worker", func(t *testing.T) {
		if !c.gpu {
			t.Skip("no fake GPU device (mknod failed; see the log)")
		}
		port := launchertest.FreePort(t)
		id := c.submit(t, script("gpu"), nil, nil, nil, "--var", fmt.Sprintf("port=%d", port))
		c.waitOutput(t, id, `(?m)^verified gpu`, 90*time.Second)
		// run relays the worker's output from its log as it comes.
		out := c.waitOutput(t, id, `gpu: CUDA_VISIBLE_DEVICES=\S+ .*SLURM_JOB_ID=\S+`, 30*time.Second)
		want := "gpu: CUDA_VISIBLE_DEVICES=0 ROCR_VISIBLE_DEVICES=0 GPU_DEVICE_ORDINAL=0 SLURM_JOB_ID=" + id
		if !strings.Contains(out, want) {
			t.Errorf("job %s's worker lacks the step's devices (want %q):\n%s", id, want, out)
		}
		if st, _ := c.cancel(t, id); st != "CANCELLED" {
			t.Errorf("after scancel: %s", st)
		}
		portFree(t, port, 20*time.Second)
	})
}

// copyExample03 copies examples/03-dispatch-resource-env into a temporary
// tree (with mock-llm at ../../bin/mock-llm from it, as in the repository)
// and makes its dispatch script serve port instead of 18083. It returns
// the example's directory.
func copyExample03(t *testing.T, port int) string {
	t.Helper()
	root := t.TempDir()
	if err := os.Chmod(root, 0o755); err != nil {
		t.Fatal(err)
	}
	src := filepath.Join(repoRoot(), "examples", "03-dispatch-resource-env")
	x := filepath.Join(root, "examples", "03-dispatch-resource-env")
	files := map[string]string{}
	for _, name := range []string{"childproof.hcl", ".env", "launch.sh", "scripts/dispatch-fixed.sh"} {
		b, err := os.ReadFile(filepath.Join(src, name))
		if err != nil {
			t.Fatal(err)
		}
		files[name] = string(b)
	}
	files["scripts/dispatch-fixed.sh"] = strings.ReplaceAll(files["scripts/dispatch-fixed.sh"], "18083", fmt.Sprint(port))
	writeFiles(t, x, files)
	mock, err := os.ReadFile(mockLLM)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(root, "bin"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "bin", "mock-llm"), mock, 0o755); err != nil {
		t.Fatal(err)
	}
	return x
}
