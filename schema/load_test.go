package schema

import (
	"fmt"
	"github.com/childproof/childproof/internal/specrule"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/childproof/childproof/internal/testsupport"
	"github.com/childproof/childproof/redact"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/hashicorp/hcl/v2"
)

func lookupFrom(env map[string]string) func(string) (string, bool) {
	return func(k string) (string, bool) {
		v, ok := env[k]
		return v, ok
	}
}

// diagLines renders diagnostics as "L:C severity: summary: detail" for
// comparison; a diagnostic without a range is "-".
func diagLines(d hcl.Diagnostics) []string {
	var out []string
	for _, x := range d {
		sev := "error"
		if x.Severity == hcl.DiagWarning {
			sev = "warning"
		}
		loc := "-"
		if x.Subject != nil {
			loc = fmt.Sprintf("%d:%d", x.Subject.Start.Line, x.Subject.Start.Column)
		}
		out = append(out, fmt.Sprintf("%s %s: %s", loc, sev, x.Summary))
	}
	return out
}

const contractSpec = `
variable "port" {
  default = 18081
}

launch "mock-llm" {
  command  = ["./bin/mock-llm", "--addr", "127.0.0.1:${var.port}"]
  dir      = "."
  env_file = ".env"
  inherit  = ["PATH", "HOME", "LANG"]
  env = {
    MOCK_LLM_KEY              = env("MOCK_LLM_KEY")
    HF_HUB_ENABLE_HF_TRANSFER = "0"
  }
  require         = ["MOCK_LLM_KEY"]
  forbid_wrappers = ["login-shell", "interactive-shell", "env-reset"]

  worker {
    comm = "mock-llm"
  }

  port "http" {
    number  = var.port
    address = "127.0.0.1"
  }

  ready {
    http    = "/healthz"
    timeout = "10s"
  }

  attempts = 3
  on_stale = "replace"
}

alias "HF_XET_DISABLE2" {
  use = "HF_HUB_DISABLE_XET"
}
`

func TestLoadContractExample(t *testing.T) {
	dir := testsupport.WriteTree(t, map[string]string{
		"childproof.hcl": contractSpec,
		".env":           "LOG_LEVEL=info\n",
		"bin/mock-llm":   "#!/bin/sh\n",
	})
	path := filepath.Join(dir, "childproof.hcl")
	f, _, diags := Load(path, LoadOptions{LookupEnv: lookupFrom(map[string]string{"MOCK_LLM_KEY": "k"})})
	if diags.HasErrors() || len(diags) > 0 {
		t.Fatalf("diagnostics: %v", diagLines(diags))
	}
	want := &Launch{
		Name:           "mock-llm",
		SpecPath:       path,
		Command:        []string{"./bin/mock-llm", "--addr", "127.0.0.1:18081"},
		Dir:            dir,
		EnvFile:        filepath.Join(dir, ".env"),
		Inherit:        []string{"PATH", "HOME", "LANG"},
		Env:            map[string]string{"MOCK_LLM_KEY": "k", "HF_HUB_ENABLE_HF_TRANSFER": "0"},
		Require:        []string{"MOCK_LLM_KEY"},
		ForbidWrappers: []string{"login-shell", "interactive-shell", "env-reset"},
		Worker:         Worker{Comm: "mock-llm"},
		Ports:          []Port{{Name: "http", Number: 18081, Address: "127.0.0.1"}},
		Ready:          Ready{HTTP: "/healthz", Timeout: 10 * time.Second},
		Attempts:       3,
		OnStale:        "replace",
		SecretValues:   []redact.Secret{{Name: "MOCK_LLM_KEY", Value: "k"}},
		Aliases:        map[string]string{"HF_XET_DISABLE": "HF_HUB_DISABLE_XET", "HF_XET_DISABLE2": "HF_HUB_DISABLE_XET"},
		Sensitive:      map[string]bool{},
	}
	got, err := f.Launch("")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got, cmpopts.IgnoreFields(Launch{}, "Ranges", "Sensitive")); diff != "" {
		t.Errorf("launch (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(map[string]string{"HF_XET_DISABLE2": "HF_HUB_DISABLE_XET"}, f.Aliases); diff != "" {
		t.Errorf("aliases (-want +got):\n%s", diff)
	}
	if r := got.Ranges.Env["MOCK_LLM_KEY"]; r.Start.Line != 12 || r.Start.Column != 5 {
		t.Errorf("range of env[MOCK_LLM_KEY] = %d:%d, want 12:5", r.Start.Line, r.Start.Column)
	}
	if r := got.Ranges.Parts["port[0].number"]; r.Start.Line != 23 || r.Start.Column != 15 {
		t.Errorf("range of port[0].number = %d:%d, want 23:15", r.Start.Line, r.Start.Column)
	}
	if got.Ranges.Block.Start.Line != 6 || len(got.Ranges.Ports) != 1 {
		t.Errorf("ranges: block line %d, %d ports", got.Ranges.Block.Start.Line, len(got.Ranges.Ports))
	}
	if len(f.Hash) != 64 {
		t.Errorf("hash %q", f.Hash)
	}
}

func TestLoadDefaults(t *testing.T) {
	dir := testsupport.WriteTree(t, map[string]string{"s.hcl": `launch "a" {
  dispatch = ["run.sh", "x"]
}
`, "run.sh": "exec true\n"})
	f, _, diags := Load(filepath.Join(dir, "s.hcl"), LoadOptions{})
	if len(diags) > 0 {
		t.Fatalf("diagnostics: %v", diagLines(diags))
	}
	l := f.Launches[0]
	if l.Inherit != nil || l.ForbidWrappers != nil || l.Attempts != 0 || l.OnStale != "" || l.Dir != dir {
		t.Errorf("defaults not left zero: %+v", l)
	}
	if diff := cmp.Diff(DefaultInherit, l.EffectiveInherit()); diff != "" {
		t.Error(diff)
	}
	if l.ReadyTimeout() != 10*time.Second || l.EffectiveAttempts() != 1 || l.EffectiveOnStale() != StaleFail {
		t.Errorf("effective values: %v %d %q", l.ReadyTimeout(), l.EffectiveAttempts(), l.EffectiveOnStale())
	}
	for _, v := range []OnStale{StaleFail, StaleReplace} {
		if got := (&Launch{OnStale: v}).EffectiveOnStale(); got != v {
			t.Errorf("EffectiveOnStale of %q = %q", v, got)
		}
	}
}

func TestLoadVars(t *testing.T) {
	src := `variable "port" {
  default = 1000
}
variable "name" {
  default = "x"
}
variable "flag" {
  default = false
}
launch "a" {
  command = ["true", "${var.name}-${var.port}"]
  attempts = var.port - 999
  port "p" {
    number = var.port
    allow_all_interfaces = var.flag
  }
}
`
	dir := testsupport.WriteTree(t, map[string]string{"s.hcl": src})
	cases := []struct {
		vars     map[string]string
		argv1    string
		port     int
		attempts int
		diags    []string
	}{
		{nil, "x-1000", 1000, 1, nil},
		{map[string]string{"port": "1002"}, "x-1002", 1002, 3, nil},
		{map[string]string{"name": "42"}, "42-1000", 1000, 1, nil},
		{map[string]string{"port": "http"}, "", 0, 0, []string{"12:14 error: Invalid operand", "14:14 error: Incorrect attribute value type"}},
		{map[string]string{"nope": "1"}, "", 0, 0, []string{"- error: Undeclared variable"}},
		{map[string]string{"port": "70000"}, "", 0, 0, []string{"12:14 error: Invalid attempts", "14:14 error: Invalid port number"}},
	}
	for _, c := range cases {
		t.Run(fmt.Sprint(c.vars), func(t *testing.T) {
			f, _, diags := Load(filepath.Join(dir, "s.hcl"), LoadOptions{Vars: c.vars})
			if diff := cmp.Diff(c.diags, diagLines(diags)); diff != "" {
				t.Fatalf("diagnostics (-want +got):\n%s", diff)
			}
			if c.diags != nil {
				return
			}
			l := f.Launches[0]
			if l.Command[1] != c.argv1 || l.Ports[0].Number != c.port || l.Attempts != c.attempts {
				t.Errorf("got argv[1]=%q port=%d attempts=%d", l.Command[1], l.Ports[0].Number, l.Attempts)
			}
		})
	}
}

func TestLoadFunctions(t *testing.T) {
	dir := testsupport.WriteTree(t, map[string]string{
		"key.txt": "from-file",
		"s.hcl": `launch "a" {
  command = ["true", env("ARG"), file("key.txt")]
  env = {
    K = env("K", "fallback")
    F = file("key.txt")
  }
}
`,
	})
	f, _, diags := Load(filepath.Join(dir, "s.hcl"), LoadOptions{LookupEnv: lookupFrom(map[string]string{"ARG": "secret"})})
	if len(diags) > 0 {
		t.Fatalf("diagnostics: %v", diagLines(diags))
	}
	l := f.Launches[0]
	want := []string{"true", "secret", "from-file"}
	if diff := cmp.Diff(want, l.Command); diff != "" {
		t.Error(diff)
	}
	if diff := cmp.Diff(map[string]string{"K": "fallback", "F": "from-file"}, l.Env); diff != "" {
		t.Error(diff)
	}
	// K took env()'s default, not the caller's value: not sensitive.
	if diff := cmp.Diff(map[string]bool{"command[1]": true, "command[2]": true, "env[F]": true}, l.Sensitive); diff != "" {
		t.Errorf("sensitive (-want +got):\n%s", diff)
	}
}

func TestLoadEnvSensitive(t *testing.T) {
	dir := testsupport.WriteTree(t, map[string]string{"s.hcl": `launch "a" {
  command = ["true"]
  env = {
    KEY   = env("KEY")
    MIXED = "x-${env("KEY")}"
    PLAIN = "0"
  }
}
launch "b" {
  command = ["true"]
  env     = { for k in ["A", "B"] : k => env("KEY") }
}
`})
	f, _, diags := Load(filepath.Join(dir, "s.hcl"), LoadOptions{LookupEnv: lookupFrom(map[string]string{"KEY": "v"})})
	if len(diags) > 0 {
		t.Fatalf("diagnostics: %v", diagLines(diags))
	}
	if diff := cmp.Diff(map[string]bool{"env[KEY]": true, "env[MIXED]": true}, f.Launches[0].Sensitive); diff != "" {
		t.Errorf("a: sensitive (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(map[string]bool{"env[A]": true, "env[B]": true}, f.Launches[1].Sensitive); diff != "" {
		t.Errorf("b: sensitive (-want +got):\n%s", diff)
	}
}

// TestLoadBadSpecs covers every bad-spec class: each produces diagnostics
// at the exact line:col of the part at fault.
func TestLoadBadSpecs(t *testing.T) {
	cases := []struct {
		name  string
		src   string
		files map[string]string
		want  []string
	}{
		{"unknown attribute", `launch "a" {
  comand = ["true"]
}`, nil, []string{"2:3 error: Unsupported argument"}},
		{"unknown block", `lunch "a" {
}`, nil, []string{"1:1 error: Unsupported block type"}},
		{"wrong type", `launch "a" {
  command = "true"
}`, nil, []string{"2:13 error: Incorrect attribute value type"}},
		{"wrong type in map", `launch "a" {
  command = ["true"]
  env = ["A"]
}`, nil, []string{"3:9 error: Incorrect attribute value type"}},
		{"port out of range", `launch "a" {
  command = ["true"]
  port "http" {
    number = 70000
  }
}`, nil, []string{"4:14 error: Invalid port number"}},
		{"port zero", `launch "a" {
  command = ["true"]
  port "http" {
    number = 0
  }
}`, nil, []string{"4:14 error: Invalid port number"}},
		{"port missing number", `launch "a" {
  command = ["true"]
  port "http" {
  }
}`, nil, []string{"3:15 error: Missing required argument"}},
		{"port not whole", `launch "a" {
  command = ["true"]
  port "http" {
    number = 80.5
  }
}`, nil, []string{"4:14 error: Invalid value"}},
		{"both command and dispatch", `launch "a" {
  command = ["true"]
  dispatch = ["run.sh"]
}`, map[string]string{"run.sh": ""}, []string{"2:13 error: Conflicting command and dispatch"}},
		{"neither command nor dispatch", `launch "a" {
  dir = "."
}`, nil, []string{"1:1 error: Missing command or dispatch"}},
		{"empty command", `launch "a" {
  command = []
}`, nil, []string{"2:13 error: Empty command"}},
		{"empty program", `launch "a" {
  command = ["", "x"]
}`, nil, []string{"2:14 error: Empty program"}},
		{"empty dispatch script", `launch "a" {
  dispatch = [""]
}`, nil, []string{"2:15 error: Empty program"}},
		{"relative exe", `launch "a" {
  command = ["true"]
  worker {
    exe = "bin/x"
  }
}`, nil, []string{"4:11 error: Relative worker exe"}},
		{"comm and exe", `launch "a" {
  command = ["true"]
  worker {
    comm = "x"
    exe  = "/bin/x"
  }
}`, nil, []string{"5:12 error: Conflicting worker selectors"}},
		{"comm too long", `launch "a" {
  command = ["true"]
  worker {
    comm = "abcdefghijklmnop"
  }
}`, nil, []string{"4:12 error: Worker comm too long"}},
		{"bad duration", `launch "a" {
  command = ["true"]
  ready {
    timeout = "10 seconds"
  }
}`, nil, []string{"4:15 error: Invalid duration"}},
		{"bad ready path", `launch "a" {
  command = ["true"]
  ready {
    http = "healthz"
  }
}`, nil, []string{"4:12 error: Invalid readiness path"}},
		{"all interfaces v4", `launch "a" {
  command = ["true"]
  port "http" {
    number  = 80
    address = "0.0.0.0"
  }
}`, nil, []string{"5:15 error: Bind to all interfaces"}},
		{"all interfaces v6", `launch "a" {
  command = ["true"]
  port "http" {
    number  = 80
    address = "::"
  }
}`, nil, []string{"5:15 error: Bind to all interfaces"}},
		{"bad address", `launch "a" {
  command = ["true"]
  port "http" {
    number  = 80
    address = "localhost"
  }
}`, nil, []string{"5:15 error: Invalid address"}},
		{"duplicate launch", `launch "a" {
  command = ["true"]
}
launch "a" {
  command = ["true"]
}`, nil, []string{"4:8 error: Duplicate launch name"}},
		{"duplicate port", `launch "a" {
  command = ["true"]
  port "p" {
    number = 1
  }
  port "q" {
    number = 1
  }
}`, nil, []string{"7:14 error: Duplicate port number"}},
		{"duplicate worker", `launch "a" {
  command = ["true"]
  worker {
    comm = "a"
  }
  worker {
    comm = "b"
  }
}`, nil, []string{"6:3 error: Duplicate worker block"}},
		{"require without source", `launch "a" {
  command = ["true"]
  inherit = ["PATH"]
  require = ["PATH", "API_KEY"]
}`, nil, []string{"4:22 error: Required variable has no source"}},
		{"require from env_file", `launch "a" {
  command  = ["true"]
  env_file = ".env"
  inherit  = []
  require  = ["API_KEY"]
}`, map[string]string{".env": "API_KEY=x\n"}, nil},
		{"require empty override", `launch "a" {
  command = ["true"]
  env     = { API_KEY = "" }
  require = ["API_KEY"]
}`, nil, []string{"4:14 error: Required variable set empty"}},
		{"missing env_file", `launch "a" {
  command  = ["true"]
  env_file = "nope.env"
}`, nil, []string{"3:14 error: Cannot read env_file"}},
		{"bad env_file", `launch "a" {
  command  = ["true"]
  env_file = ".env"
}`, map[string]string{".env": "A='unterminated\n"}, []string{"3:14 error: Invalid env_file"}},
		{"missing dir", `launch "a" {
  command = ["true"]
  dir     = "nope"
}`, nil, []string{"3:13 error: Directory not found"}},
		{"missing dispatch script", `launch "a" {
  dispatch = ["nope.sh"]
}`, nil, []string{"2:15 error: Dispatch script not found"}},
		{"missing program", `launch "a" {
  command = ["./nope"]
}`, nil, []string{"2:14 error: Program not found"}},
		{"program not on PATH", `launch "a" {
  command = ["vllmm", "serve"]
}`, nil, []string{"2:14 error: Program not found"}},
		{"program on the launch's PATH", `launch "a" {
  command = ["tool"]
  env     = { PATH = "bin:/usr/bin" }
}`, map[string]string{"bin/tool": "#!/bin/sh\n"}, nil},
		{"unknown wrapper rule", `launch "a" {
  command = ["true"]
  forbid_wrappers = ["login-shell", "sudo"]
}`, nil, []string{"3:37 error: Unknown wrapper rule"}},
		{"bad on_stale", `launch "a" {
  command  = ["true"]
  on_stale = "kill"
}`, nil, []string{"3:14 error: Invalid on_stale"}},
		{"bad attempts", `launch "a" {
  command  = ["true"]
  attempts = 0
}`, nil, []string{"3:14 error: Invalid attempts"}},
		{"bad env name", `launch "a" {
  command = ["true"]
  env = { "1A" = "x" }
}`, nil, []string{"3:11 error: Invalid variable name"}},
		{"bad inherit name", `launch "a" {
  command = ["true"]
  inherit = ["PATH", "A-B"]
}`, nil, []string{"3:22 error: Invalid inherit entry"}},
		{"bad inherit pattern", `launch "a" {
  command = ["true"]
  inherit = ["CUDA_[", "X/*"]
}`, nil, []string{"3:14 error: Invalid inherit entry", "3:24 error: Invalid inherit entry"}},
		{"require only a pattern gives", `launch "a" {
  command = ["true"]
  inherit = ["PATH", "CUDA_*"]
  require = ["CUDA_VISIBLE_DEVICES", "NCCL_DEBUG"]
}`, nil, []string{"4:38 error: Required variable has no source"}},
		{"bad launch name", `launch "a b" {
  command = ["true"]
}`, nil, []string{"1:8 error: Invalid launch name"}},
		{"bad worker role name", `launch "a" {
  command = ["true"]
  worker "a b" {
    comm = "true"
  }
}`, nil, []string{"3:10 error: Invalid worker role name"}},
		{"env unset without default", `launch "a" {
  command = ["true", env("NOT_SET_ANYWHERE")]
}`, nil, []string{"2:27 error: Invalid function argument"}},
		{"file missing", `launch "a" {
  command = ["true", file("nope.txt")]
}`, nil, []string{"2:28 error: Invalid function argument"}},
		{"unknown function", `launch "a" {
  command = ["true", upper("x")]
}`, nil, []string{"2:22 error: Call to unknown function"}},
		{"undeclared var", `launch "a" {
  command = ["true", var.nope]
}`, nil, []string{"2:25 error: Unsupported attribute"}},
		{"variable without value", `variable "p" {
}
launch "a" {
  command = ["true"]
}`, nil, []string{"1:1 error: No value for variable"}},
		{"no launch", `variable "p" {
  default = 1
}`, nil, []string{"- error: No launch block"}},
		{"syntax error", `launch "a" {
  command = ["true"
}`, nil, []string{"3:1 error: Missing item separator"}},
		{"inherit BASH_ENV warns", `launch "a" {
  command = ["true"]
  inherit = ["PATH", "BASH_ENV"]
}`, nil, []string{"3:22 warning: Variable will be removed"}},
		{"noop alias warns", `alias "MY_ALIAS" {
  use = "REAL"
}
launch "a" {
  command = ["true"]
  env = {
    HF_XET_DISABLE = "1"
    MY_ALIAS = "1"
  }
  require = ["MY_ALIAS"]
}`, nil, []string{"7:5 warning: No-op alias", "8:5 warning: No-op alias", "10:14 warning: No-op alias"}},
		{"restart bad policy", `launch "a" {
  command = ["true"]
  restart {
    policy = "sometimes"
  }
}`, nil, []string{"4:14 error: Invalid restart policy"}},
		{"restart without policy", `launch "a" {
  command = ["true"]
  restart {
    max = 3
  }
}`, nil, []string{"3:11 error: Missing required argument"}},
		{"restart bad max", `launch "a" {
  command = ["true"]
  restart {
    policy = "always"
    max    = 0
  }
}`, nil, []string{"5:14 error: Invalid restart max"}},
		{"restart bad backoff", `launch "a" {
  command = ["true"]
  restart {
    policy  = "on-failure"
    backoff = "soon"
  }
}`, nil, []string{"5:15 error: Invalid duration"}},
		{"duplicate restart", `launch "a" {
  command = ["true"]
  restart {
    policy = "always"
  }
  restart {
    policy = "never"
  }
}`, nil, []string{"6:3 error: Duplicate restart block"}},
		{"slurm bad time", `launch "a" {
  command = ["true"]
  slurm {
    time = "2h"
  }
}`, nil, []string{"4:12 error: Invalid slurm time"}},
		{"slurm partition with space", `launch "a" {
  command = ["true"]
  slurm {
    partition = "gpu\n#SBATCH --x"
  }
}`, nil, []string{"4:17 error: Invalid slurm partition"}},
		{"slurm unknown attribute", `launch "a" {
  command = ["true"]
  slurm {
    cpus = 2
  }
}`, nil, []string{"4:5 error: Unsupported argument"}},
		{"slurm nodes below one", `launch "a" {
  command = ["true"]
  slurm {
    nodes = 0
  }
}`, nil, []string{"4:13 error: Invalid slurm nodes"}},
		{"alias without use", `alias "A" {
}
launch "a" {
  command = ["true"]
}`, nil, []string{"1:11 error: Missing required argument"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			files := map[string]string{"s.hcl": c.src}
			for k, v := range c.files {
				files[k] = v
			}
			dir := testsupport.WriteTree(t, files)
			path := filepath.Join(dir, "s.hcl")
			f, hf, diags := Load(path, LoadOptions{LookupEnv: lookupFrom(nil)})
			if diff := cmp.Diff(c.want, diagLines(diags)); diff != "" {
				for _, d := range diags {
					t.Log(d.Error())
				}
				t.Fatalf("diagnostics (-want +got):\n%s", diff)
			}
			if diags.HasErrors() != (f == nil) {
				t.Errorf("file is %v with errors=%v", f, diags.HasErrors())
			}
			for _, d := range diags {
				if d.Subject != nil && hf[d.Subject.Filename] == nil {
					t.Errorf("diagnostic %q points into %s, which is not in the file map", d.Summary, d.Subject.Filename)
				}
			}
		})
	}
}

func TestLoadRestartSlurm(t *testing.T) {
	cases := []struct {
		name        string
		block       string
		wantRestart Restart
		wantSlurm   Slurm
	}{
		{"none", "", Restart{}, Slurm{}},
		{"restart defaults", "restart {\n policy = \"on-failure\"\n}", Restart{Policy: "on-failure", Max: 5, Backoff: time.Second}, Slurm{}},
		{"restart full", "restart {\n policy = \"always\"\n max = 7\n backoff = \"250ms\"\n}", Restart{Policy: "always", Max: 7, Backoff: 250 * time.Millisecond}, Slurm{}},
		{"slurm", "slurm {\n partition = \"gpu,debug\"\n gres = \"gpu:a100:2\"\n time = \"1-02:30:00\"\n}", Restart{}, Slurm{Partition: "gpu,debug", Gres: "gpu:a100:2", Time: "1-02:30:00"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := testsupport.WriteTree(t, map[string]string{"s.hcl": "launch \"a\" {\n command = [\"true\"]\n" + c.block + "\n}\n"})
			f, _, diags := Load(filepath.Join(dir, "s.hcl"), LoadOptions{})
			if diags.HasErrors() {
				t.Fatal(diags)
			}
			la := f.Launches[0]
			if diff := cmp.Diff(c.wantRestart, la.Restart); diff != "" {
				t.Errorf("restart (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(c.wantSlurm, la.Slurm); diff != "" {
				t.Errorf("slurm (-want +got):\n%s", diff)
			}
		})
	}
	if got := (Restart{}); got.EffectivePolicy() != "never" || got.EffectiveMax() != 5 || got.EffectiveBackoff() != time.Second {
		t.Errorf("zero Restart's effective values: %q %d %v", got.EffectivePolicy(), got.EffectiveMax(), got.EffectiveBackoff())
	}
}

func TestIsSlurmTime(t *testing.T) {
	for s, want := range map[string]bool{
		"30": true, "30:00": true, "2:30:00": true, "1-0": true, "1-2:30": true, "1-02:30:00": true,
		"": false, "2h": false, "1:2:3:4": false, "1-": false, "-1": false, "1-2:3:4:5": false, "1--2": false, "a": false, "1:": false,
	} {
		if got := specrule.IsSlurmTime(s); got != want {
			t.Errorf("specrule.IsSlurmTime(%q) = %v, want %v", s, got, want)
		}
	}
}

func TestLoadDidYouMean(t *testing.T) {
	dir := testsupport.WriteTree(t, map[string]string{"s.hcl": "launch \"a\" {\n  comand = [\"true\"]\n}\n"})
	_, _, diags := Load(filepath.Join(dir, "s.hcl"), LoadOptions{})
	if len(diags) != 1 || !strings.Contains(diags[0].Detail, `Did you mean "command"?`) {
		t.Fatalf("got %v", diags)
	}
}

// TestLoadUnreadable: a missing file, a directory, an empty file and
// random bytes each give one diagnostic without a range.
func TestLoadUnreadable(t *testing.T) {
	dir := testsupport.WriteTree(t, map[string]string{
		"empty.hcl":  "",
		"blank.hcl":  "  \n\n",
		"binary.hcl": "launch \x00\xff\xfe",
		"latin1.hcl": "launch \"caf\xe9\" {}",
	})
	cases := []struct{ path, summary string }{
		{filepath.Join(dir, "missing.hcl"), "Cannot read spec"},
		{dir, "Cannot read spec"},
		{filepath.Join(dir, "empty.hcl"), "Spec is empty"},
		{filepath.Join(dir, "blank.hcl"), "Spec is empty"},
		{filepath.Join(dir, "binary.hcl"), "Spec is not a text file"},
		{filepath.Join(dir, "latin1.hcl"), "Spec is not a text file"},
		{"/dev/null", "Cannot read spec"},
	}
	for _, c := range cases {
		f, _, diags := Load(c.path, LoadOptions{})
		if f != nil || len(diags) != 1 || diags[0].Subject != nil || diags[0].Summary != c.summary {
			t.Errorf("%s: got %v", c.path, diags)
		}
	}
}

func TestFileLaunch(t *testing.T) {
	f := &File{Path: "s.hcl", Launches: []*Launch{{Name: "a"}, {Name: "b"}}}
	if l, err := f.Launch("b"); err != nil || l.Name != "b" {
		t.Errorf("Launch(b) = %v, %v", l, err)
	}
	if _, err := f.Launch(""); err == nil || !strings.Contains(err.Error(), "a, b") {
		t.Errorf("Launch(\"\") = %v", err)
	}
	if _, err := f.Launch("c"); err == nil || !strings.Contains(err.Error(), `no launch named "c"`) {
		t.Errorf("Launch(c) = %v", err)
	}
	one := &File{Launches: []*Launch{{Name: "a"}}}
	if l, err := one.Launch(""); err != nil || l.Name != "a" {
		t.Errorf("single Launch(\"\") = %v, %v", l, err)
	}
}

func TestVarValue(t *testing.T) {
	cases := []struct {
		in   string
		keep bool
		want string
	}{
		{"18081", false, "cty.NumberIntVal(18081)"},
		{"1.5", false, "cty.NumberFloatVal(1.5)"},
		{"-3", false, "cty.NumberIntVal(-3)"},
		{"true", false, "cty.True"},
		{"18081", true, "cty.StringVal(\"18081\")"},
		{"0x10", false, "cty.StringVal(\"0x10\")"},
		{"Inf", false, "cty.StringVal(\"Inf\")"},
		{" 1", false, "cty.StringVal(\" 1\")"},
		{"", false, "cty.StringVal(\"\")"},
	}
	for _, c := range cases {
		if got := varValue(c.in, c.keep).GoString(); got != c.want {
			t.Errorf("varValue(%q, %v) = %s, want %s", c.in, c.keep, got, c.want)
		}
	}
}

func TestTypeErrorSaysItOnce(t *testing.T) {
	for src, want := range map[string]string{
		`launch "a" {
  command = "true"
}`: `Inappropriate value for attribute "command": a list of strings is required, like ["a", "b"], not a string.`,
		`launch "a" {
  command = ["a", { x = 1 }]
}`: `Inappropriate value for attribute "command": a list of strings is required, like ["a", "b"]; element 1: string required, but have object.`,
	} {
		_, _, diags := Parse([]byte(src), "s.hcl", LoadOptions{LaunchesNothing: true})
		var details []string
		for _, d := range diags {
			details = append(details, d.Detail)
		}
		if !slices.Contains(details, want) {
			t.Errorf("%s:\ndetails %q\nwant %q", src, details, want)
		}
	}
}
