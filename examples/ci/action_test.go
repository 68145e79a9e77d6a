package ci

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

type actionStep struct {
	Name             string            `json:"name"`
	ID               string            `json:"id"`
	If               string            `json:"if"`
	Uses             string            `json:"uses"`
	Shell            string            `json:"shell"`
	Run              string            `json:"run"`
	Env              map[string]string `json:"env"`
	With             map[string]string `json:"with"`
	WorkingDirectory string            `json:"working-directory"`
}

type action struct {
	Name        string            `json:"name"`
	Description string            `json:"description"`
	Author      string            `json:"author"`
	Branding    map[string]string `json:"branding"`
	Inputs      map[string]struct {
		Description string `json:"description"`
		Default     string `json:"default"`
		Required    bool   `json:"required"`
	} `json:"inputs"`
	Outputs map[string]struct {
		Description string `json:"description"`
		Value       string `json:"value"`
	} `json:"outputs"`
	Runs struct {
		Using string       `json:"using"`
		Steps []actionStep `json:"steps"`
	} `json:"runs"`
}

// runner plays the part of the GitHub runner for a composite action:
// expressions from inputs, github and steps contexts; run steps under
// bash --noprofile --norc -eo pipefail; uses steps recorded, not run.
type runner struct {
	t         *testing.T
	actionDir string
	workspace string
	temp      string
	inputs    map[string]string
	baseRef   string
	outputs   map[string]map[string]string // step id → outputs
	path      []string                     // GITHUB_PATH additions
	uses      []actionStep                 // uses steps that would run
	stdout    map[string]string            // step name → stdout
	failed    string                       // the step that failed, if any
}

var exprRe = regexp.MustCompile(`\$\{\{\s*([^}]*?)\s*\}\}`)

func (r *runner) expr(s string) string {
	return exprRe.ReplaceAllStringFunc(s, func(m string) string {
		e := exprRe.FindStringSubmatch(m)[1]
		switch {
		case strings.HasPrefix(e, "inputs."):
			return r.inputs[strings.TrimPrefix(e, "inputs.")]
		case e == "github.action_path":
			return r.actionDir
		case e == "github.base_ref":
			return r.baseRef
		case strings.HasPrefix(e, "steps."):
			parts := strings.Split(e, ".") // steps.ID.outputs.NAME
			if len(parts) == 4 {
				return r.outputs[parts[1]][parts[3]]
			}
		}
		r.t.Fatalf("expression %q not understood by the test runner", e)
		return ""
	})
}

// cond evaluates the step conditions action.yml uses: always(),
// comparisons of inputs with literals, &&, and hashFiles(…) != ”.
func (r *runner) cond(c string) bool {
	if c == "" {
		return r.failed == ""
	}
	always := false
	ok := true
	for _, part := range strings.Split(c, "&&") {
		part = strings.TrimSpace(part)
		switch {
		case part == "always()":
			always = true
		case strings.HasPrefix(part, "hashFiles("):
			f := filepath.Join(r.workspace, r.inputs["working-directory"], r.inputs["sarif-file"])
			_, err := os.Stat(f)
			ok = ok && err == nil
		default:
			m := regexp.MustCompile(`^inputs\.([\w-]+) (==|!=) '([^']*)'$`).FindStringSubmatch(part)
			if m == nil {
				r.t.Fatalf("condition %q not understood by the test runner", part)
			}
			eq := r.inputs[m[1]] == m[3]
			ok = ok && eq == (m[2] == "==")
		}
	}
	return ok && (always || r.failed == "")
}

func (r *runner) runAction(a *action) {
	r.outputs = map[string]map[string]string{}
	r.stdout = map[string]string{}
	for _, st := range a.Runs.Steps {
		if !r.cond(st.If) {
			continue
		}
		if st.Uses != "" {
			st.With = expandMap(r, st.With)
			r.uses = append(r.uses, st)
			continue
		}
		if st.Shell != "bash" {
			r.t.Fatalf("step %q: shell %q", st.Name, st.Shell)
		}
		script := filepath.Join(r.temp, "step.sh")
		if err := os.WriteFile(script, []byte(st.Run), 0o755); err != nil {
			r.t.Fatal(err)
		}
		outFile := filepath.Join(r.temp, "output")
		pathFile := filepath.Join(r.temp, "path")
		os.WriteFile(outFile, nil, 0o644)
		os.WriteFile(pathFile, nil, 0o644)
		cmd := exec.Command("bash", "--noprofile", "--norc", "-eo", "pipefail", script)
		cmd.Dir = r.workspace
		if st.WorkingDirectory != "" {
			cmd.Dir = filepath.Join(r.workspace, r.expr(st.WorkingDirectory))
		}
		env := []string{"HOME=" + os.Getenv("HOME"), "GOPATH=" + os.Getenv("GOPATH"), "GOCACHE=" + goEnv("GOCACHE"),
			"GOMODCACHE=" + goEnv("GOMODCACHE"), "GOFLAGS=" + os.Getenv("GOFLAGS"), "GOPROXY=" + os.Getenv("GOPROXY"),
			"GITHUB_OUTPUT=" + outFile, "GITHUB_PATH=" + pathFile, "RUNNER_TEMP=" + r.temp, "GITHUB_WORKSPACE=" + r.workspace,
			"GIT_CONFIG_GLOBAL=/dev/null", "PATH=" + strings.Join(append(append([]string(nil), r.path...), os.Getenv("PATH")), ":")}
		for k, v := range st.Env {
			env = append(env, k+"="+r.expr(v))
		}
		cmd.Env = env
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		r.stdout[st.Name] = stdout.String()
		if err != nil {
			r.t.Logf("step %q failed: %v\nstdout:\n%s\nstderr:\n%s", st.Name, err, stdout.String(), stderr.String())
			r.failed = st.Name
		}
		if st.ID != "" {
			r.outputs[st.ID] = readKV(r.t, outFile)
		}
		for _, p := range strings.Split(strings.TrimSpace(string(mustRead(r.t, pathFile))), "\n") {
			if p != "" {
				r.path = append([]string{p}, r.path...)
			}
		}
	}
}

func expandMap(r *runner, m map[string]string) map[string]string {
	out := map[string]string{}
	for k, v := range m {
		out[k] = r.expr(v)
	}
	return out
}

func goEnv(name string) string {
	out, err := exec.Command("go", "env", name).Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}

func mustRead(t *testing.T, p string) []byte {
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func readKV(t *testing.T, p string) map[string]string {
	out := map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader(mustRead(t, p)))
	for sc.Scan() {
		if k, v, ok := strings.Cut(sc.Text(), "="); ok {
			out[k] = v
		}
	}
	return out
}

func loadAction(t *testing.T) (*action, string) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	var a action
	if err := yaml.UnmarshalStrict(mustRead(t, filepath.Join(root, "action.yml")), &a); err != nil {
		t.Fatalf("action.yml: %v", err)
	}
	if a.Runs.Using != "composite" {
		t.Fatalf("runs.using = %q, want composite", a.Runs.Using)
	}
	return &a, root
}

// sampleRepo lays out a repository with a launcher, a dispatcher that
// re-sources .env, a spec, and a base commit; then it changes one line,
// as a pull request would.
func sampleRepo(t *testing.T) string {
	dir := t.TempDir()
	files := map[string]string{
		"scripts/launch.sh":   "#!/usr/bin/env bash\nexport HF_HUB_ENABLE_HF_TRANSFER=0\nexec bash scripts/dispatch.sh --arm 2\n",
		"scripts/dispatch.sh": "#!/usr/bin/env bash\ncd \"$(dirname \"$0\")/..\"\nset -a; . ./.env; set +a\nunset MOCK_LLM_KEY\nexec python3 -m fits.run \"$@\"\n",
		".env":                "HF_HUB_ENABLE_HF_TRANSFER=1\nHF_HOME=/data/hf\n",
		"childproof.hcl":      "launch \"fits\" {\n  dispatch = [\"scripts/dispatch.sh\"]\n  env = { HF_HUB_ENABLE_HF_TRANSFER = \"0\" }\n  comand = \"typo\"\n}\n",
	}
	for n, b := range files {
		p := filepath.Join(dir, n)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(b), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	git := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	git("init", "-q", "-b", "main")
	git("add", ".")
	git("commit", "-q", "-m", "base")
	git("update-ref", "refs/remotes/origin/main", "HEAD")
	git("checkout", "-q", "-b", "pr")
	// The pull request adds an env reset to the launcher; the old
	// findings of dispatch.sh are not its business.
	p := filepath.Join(dir, "scripts/launch.sh")
	if err := os.WriteFile(p, []byte("#!/usr/bin/env bash\nexport HF_HUB_ENABLE_HF_TRANSFER=0\nexec sudo -u svc bash scripts/dispatch.sh --arm 2\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	git("commit", "-q", "-am", "pr")
	return dir
}

// TestAction runs action.yml's steps against the sample repository: the
// install step builds childproof from the action's checkout, lint on a
// pull request reports only the changed line (SARIF and annotations),
// the SARIF upload is requested, and the step fails on the error finding;
// then check on an invalid spec, with the binary already on PATH.
func TestAction(t *testing.T) {
	for _, tool := range []string{"bash", "git", "go"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s not installed", tool)
		}
	}
	if testing.Short() {
		t.Skip("builds childproof")
	}
	a, root := loadAction(t)
	ws := sampleRepo(t)
	inputs := func(over map[string]string) map[string]string {
		m := map[string]string{}
		for k, v := range a.Inputs {
			m[k] = v.Default
		}
		for k, v := range over {
			m[k] = v
		}
		return m
	}
	temp := t.TempDir()
	r := &runner{t: t, actionDir: root, workspace: ws, temp: temp, baseRef: "main",
		inputs: inputs(map[string]string{"args": "--override HF_HUB_ENABLE_HF_TRANSFER=0 --require MOCK_LLM_KEY scripts/launch.sh", "setup-go": "false"})}
	r.runAction(a)
	if got := r.outputs["run"]["exit-code"]; got != "1" {
		t.Errorf("exit-code output = %q, want 1", got)
	}
	if r.failed != "Result" {
		t.Errorf("failed step = %q, want the final Result step (an error finding)", r.failed)
	}
	var log struct {
		Runs []struct {
			Tool struct {
				Driver struct{ Version string } `json:"driver"`
			} `json:"tool"`
			Results []struct {
				RuleID    string `json:"ruleId"`
				Locations []struct {
					Physical struct {
						Artifact struct{ URI string } `json:"artifactLocation"`
						Region   struct{ StartLine int }
					} `json:"physicalLocation"`
				} `json:"locations"`
			} `json:"results"`
		} `json:"runs"`
	}
	if err := json.Unmarshal(mustRead(t, filepath.Join(ws, "childproof.sarif")), &log); err != nil {
		t.Fatalf("SARIF: %v", err)
	}
	var got []string
	for _, res := range log.Runs[0].Results {
		l := res.Locations[0].Physical
		got = append(got, res.RuleID+"@"+l.Artifact.URI+":"+itoa(l.Region.StartLine))
	}
	if strings.Join(got, " ") != "env-reset@scripts/launch.sh:3" {
		t.Errorf("SARIF results %v, want only the pull request's env-reset (diff-base origin/main)", got)
	}
	if log.Runs[0].Tool.Driver.Version == "" {
		t.Error("no tool.driver.version")
	}
	if out := r.stdout["Run childproof"]; !strings.Contains(out, "::error file=scripts/launch.sh,line=3,") || strings.Contains(out, "dispatch.sh") {
		t.Errorf("annotations:\n%s", out)
	}
	if len(r.uses) != 1 || !strings.HasPrefix(r.uses[0].Uses, "github/codeql-action/upload-sarif@") ||
		r.uses[0].With["sarif_file"] != "./childproof.sarif" || r.uses[0].With["category"] != "childproof-lint" {
		t.Errorf("uses steps: %+v", r.uses)
	}

	// check on the spec (a typo: exit 2, still a SARIF report with the
	// spec's diagnostic), with install=none: childproof is on PATH now.
	r2 := &runner{t: t, actionDir: root, workspace: ws, temp: temp, baseRef: "main", path: r.path,
		inputs: inputs(map[string]string{"command": "check", "args": "childproof.hcl", "install": "none", "sarif-file": "out/check.sarif", "fail": "false"})}
	r2.runAction(a)
	if got := r2.outputs["run"]["exit-code"]; got != "2" {
		t.Errorf("check exit-code = %q, want 2", got)
	}
	if r2.failed != "" {
		t.Errorf("fail=false, but step %q failed", r2.failed)
	}
	sarif := string(mustRead(t, filepath.Join(ws, "out/check.sarif")))
	if !strings.Contains(sarif, `"ruleId": "spec"`) || !strings.Contains(sarif, `"uri": "childproof.hcl"`) {
		t.Errorf("check SARIF lacks the spec diagnostic:\n%s", sarif)
	}
	if !strings.Contains(r2.stdout["Run childproof"], "::error file=childproof.hcl,line=4,") {
		t.Errorf("check annotations:\n%s", r2.stdout["Run childproof"])
	}
}

func itoa(n int) string {
	b, _ := json.Marshal(n)
	return string(b)
}
