package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"
)

// TestImportExamples imports each example's broken launch script, runs the
// spec it writes, and verifies on the worker that it got the environment
// the script intended — minus the clobber the script had (example 3's .env
// re-source of HF_HUB_ENABLE_HF_TRANSFER). The examples are copied with
// their fixed ports replaced by free ones.
func TestImportExamples(t *testing.T) {
	t.Parallel() // its dirs, state dirs and ports are its own
	if _, err := exec.LookPath("childproof"); err != nil {
		t.Skip("childproof is not on PATH (testscript.Main sets it up)")
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go toolchain to build examples/mock-llm")
	}
	root := t.TempDir()
	build := exec.Command(goBin, "build", "-o", filepath.Join(root, "bin", "mock-llm"), "../../examples/mock-llm")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building mock-llm: %v\n%s", err, out)
	}
	const key = "import-test-key-9f2c"
	cases := []struct {
		example, script string
		args            []string
		want            map[string]string // on the worker
	}{
		{"01-login-shell", "launch.sh", nil, map[string]string{"MOCK_LLM_KEY": key}},
		{"03-dispatch-resource-env", "launch.sh", []string{"--arm", "2"},
			map[string]string{"MOCK_LLM_KEY": key, "HF_HUB_ENABLE_HF_TRANSFER": "0", "MODEL_NAME": "mock-7b"}},
		{"04-borrowed-box", "start-api.sh", nil, map[string]string{"MOCK_LLM_KEY": key}},
	}
	for _, c := range cases {
		t.Run(c.example, func(t *testing.T) {
			dir := filepath.Join(root, "examples", c.example)
			copyExample(t, filepath.Join("../../examples", c.example), dir, freeTCPPort(t))
			spec := filepath.Join(dir, "imported.hcl")
			var stdout, stderr bytes.Buffer
			args := append([]string{"import", filepath.Join(dir, c.script), "-o", spec}, "--")
			args = append(args, c.args...)
			if code := run(context.Background(), args, nil, &stdout, &stderr); code != 0 {
				t.Fatalf("import: exit %d\n%s", code, stderr.String())
			}
			src, _ := os.ReadFile(spec)
			state := filepath.Join(root, "state-"+c.example)
			cp := func(args ...string) (string, int) {
				cmd := exec.Command("childproof", append(args, "--state-dir", state)...)
				cmd.Env = append(os.Environ(), "GORACE=atexit_sleep_ms=0")
				out, err := cmd.Output()
				code := 0
				if ee, ok := err.(*exec.ExitError); ok {
					code = ee.ExitCode()
					out = append(out, ee.Stderr...)
				} else if err != nil {
					t.Fatal(err)
				}
				return string(out), code
			}
			out, code := cp("run", "--detach", "--format", "json", "--set", "MOCK_LLM_KEY="+key, spec)
			t.Cleanup(func() { cp("stop", spec) })
			if code != 0 {
				t.Fatalf("run: exit %d\n%s\nspec:\n%s", code, out, src)
			}
			var res struct {
				Worker struct {
					PID int `json:"pid"`
				} `json:"worker"`
			}
			if err := json.Unmarshal([]byte(out), &res); err != nil || res.Worker.PID == 0 {
				t.Fatalf("run output: %v\n%s", err, out)
			}
			vargs := []string{"verify", "--pid", strconv.Itoa(res.Worker.PID), "--comm", "mock-llm"}
			for k, v := range c.want {
				vargs = append(vargs, "--env", k+"="+v)
			}
			if out, code := cp(vargs...); code != 0 {
				t.Fatalf("verify: exit %d\n%s\nspec:\n%s", code, out, src)
			}
			if out, code := cp("stop", spec); code != 0 {
				t.Fatalf("stop: exit %d\n%s", code, out)
			}
		})
	}
}

var examplePort = regexp.MustCompile(`\b180[0-9][0-9]\b`)

// copyExample copies an example directory (one level of subdirectories),
// replacing its fixed port with port.
func copyExample(t *testing.T, from, to string, port int) {
	t.Helper()
	err := filepath.WalkDir(from, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(from, p)
		dst := filepath.Join(to, rel)
		if d.IsDir() {
			return os.MkdirAll(dst, 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		fi, _ := d.Info()
		b = examplePort.ReplaceAll(b, []byte(strconv.Itoa(port)))
		return os.WriteFile(dst, b, fi.Mode().Perm())
	})
	if err != nil {
		t.Fatal(err)
	}
}
