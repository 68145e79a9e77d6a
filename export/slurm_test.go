package export

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/childproof/childproof/envres"
)

func TestSlurmStory(t *testing.T) {
	dir := storyTree(t)
	l := load(t, dir, "mock-llm")
	script := render(t, l, Options{Engine: Slurm})
	for _, want := range []string{
		"#!/bin/bash\n#SBATCH --job-name=mock-llm\n#SBATCH --partition=gpu\n#SBATCH --gres=gpu:1\n#SBATCH --time=02:00:00\n#SBATCH --ntasks=1\n#SBATCH --chdir=" + dir + "\n",
		"#SBATCH --export=CHILDPROOF_STATE_DIR,HOME,LANG,MOCK_LLM_KEY,PATH,TMPDIR\n",
		"Read from the job's environment, never written here: MOCK_LLM_KEY.",
		"for name in MOCK_LLM_KEY; do\n",
		"childproof=$(command -v childproof) || {\n",
		"exec srun --ntasks=1 --export=ALL \"$childproof\" run " + dir + "/spec.hcl:mock-llm \"$@\"\n",
	} {
		if !strings.Contains(script, want) {
			t.Errorf("script lacks %q:\n%s", want, script)
		}
	}
	checkScript(t, script)
}

func TestSlurmDirWithSpace(t *testing.T) {
	l := load(t, storyTree(t), "dispatched")
	_, err := Render(t.Context(), l, Options{Engine: Slurm, Dir: "/scratch/my app"})
	if err == nil || !strings.Contains(err.Error(), "slurm cannot express the spec's directory \"/scratch/my app\"") {
		t.Fatalf("err = %v", err)
	}
	// Without a slurm block: no partition, gres or time; --dir rebases.
	script := render(t, l, Options{Engine: Slurm, Dir: "/scratch/app", Childproof: "/opt/child proof/childproof"})
	if strings.Contains(script, "--partition") || !strings.Contains(script, "#SBATCH --chdir=/scratch/app\n") ||
		!strings.Contains(script, "exec srun --ntasks=1 --export=ALL '/opt/child proof/childproof' run /scratch/app/spec.hcl:dispatched \"$@\"\n") ||
		strings.Contains(script, "command -v childproof") || strings.Contains(script, "missing=") {
		t.Errorf("script:\n%s", script)
	}
	checkScript(t, script)
}

// checkScript runs bash -n and childproof's own lint on script: no syntax
// error, no finding.
func checkScript(t *testing.T, script string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "job.sbatch")
	if err := os.WriteFile(path, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("bash", "-n", path).CombinedOutput(); err != nil {
		t.Fatalf("bash -n: %v\n%s\n%s", err, out, script)
	}
	res, err := envres.Lint(t.Context(), envres.Config{Dir: filepath.Dir(path), Scripts: []string{path}, ArgsUnknown: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Findings) > 0 {
		t.Errorf("lint findings: %+v\n%s", res.Findings, script)
	}
}

func TestShellQuote(t *testing.T) {
	for in, want := range map[string]string{"a/b.hcl:x": "a/b.hcl:x", "": "''", "a b": "'a b'", "it's": `'it'\''s'`, "$x": "'$x'"} {
		if got := shellQuote(in); got != want {
			t.Errorf("shellQuote(%q) = %s, want %s", in, got, want)
		}
	}
}

func TestSlurmMultiNodeScript(t *testing.T) {
	l := load(t, storyTree(t), "dispatched")
	l.Slurm.Nodes, l.Slurm.TasksPerNode = 2, 1
	script := render(t, l, Options{Engine: Slurm, Childproof: "/opt/childproof"})
	for _, want := range []string{
		"#SBATCH --nodes=2\n#SBATCH --ntasks-per-node=1\n",
		"\thead=$(scontrol show hostnames \"$SLURM_JOB_NODELIST\" | head -n 1)\n",
		"exec srun --nodes=2 --ntasks-per-node=1 --label --kill-on-bad-exit=1 --export=ALL /opt/childproof run ",
	} {
		if !strings.Contains(script, want) {
			t.Errorf("script lacks %q:\n%s", want, script)
		}
	}
	if strings.Contains(script, "--ntasks=1") {
		t.Errorf("a multi-node job asks for one task:\n%s", script)
	}
	checkScript(t, script)
}

func TestSlurmTasksPerNodeWithPortRefused(t *testing.T) {
	l := load(t, storyTree(t), "mock-llm")
	if len(l.Ports) == 0 {
		t.Fatal("the story's mock-llm has no port")
	}
	l.Slurm.Nodes, l.Slurm.TasksPerNode = 2, 2
	_, err := Render(t.Context(), l, Options{Engine: Slurm})
	if err == nil || !strings.Contains(err.Error(), "ntasks_per_node") || !strings.Contains(err.Error(), "would each launch a worker on port") {
		t.Fatalf("err = %v, want a refusal naming ntasks_per_node and the port", err)
	}
}
