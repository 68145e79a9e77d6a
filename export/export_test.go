package export

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"

	"github.com/childproof/childproof/internal/testsupport"
	"github.com/childproof/childproof/schema"
)

// canary is planted in the caller's environment and in secret sources:
// no output may contain it.
const canary = "export-canary-3f9c1b"

// load loads dir/spec.hcl the way the export command does and returns the
// named launch.
func load(t testing.TB, dir, name string) *schema.Launch {
	t.Helper()
	f, _, diags := schema.Load(filepath.Join(dir, "spec.hcl"), schema.LoadOptions{LookupEnv: LookupEnv, MissingProgramOK: true})
	if diags.HasErrors() {
		t.Fatalf("load: %v", diags)
	}
	l, err := f.Launch(name)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// render renders l for engine and checks that no secret leaked.
func render(t testing.TB, l *schema.Launch, o Options) string {
	t.Helper()
	out, err := Render(context.Background(), l, o)
	if err != nil {
		t.Fatalf("render %s: %v", o.Engine, err)
	}
	s := string(out)
	if strings.Contains(s, canary) || strings.Contains(s, "<env ") {
		t.Fatalf("%s output holds a secret value:\n%s", o.Engine, s)
	}
	if !strings.HasSuffix(s, "\n") {
		t.Errorf("%s output does not end with a newline", o.Engine)
	}
	return s
}

// storySpec is story 3's launch: an env file that sets the mitigation to 1,
// an override that sets it to 0, a key from the caller, a secret-list name.
const storySpec = `
variable "port" {
  default = 18081
}

launch "mock-llm" {
  command  = ["bin/mock-llm", "--addr", "127.0.0.1:${var.port}", "--greeting", "100% \"ok\" $HOME; it's"]
  env_file = ".env"
  inherit  = ["PATH", "HOME", "LANG"]
  env = {
    MOCK_LLM_KEY              = env("MOCK_LLM_KEY", "demo-key")
    HF_HUB_ENABLE_HF_TRANSFER = "0"
    LOG_LEVEL                 = "debug"
    TOKEN                     = "written-in-the-spec"
  }
  secret  = ["TOKEN"]
  require = ["MOCK_LLM_KEY"]

  worker {
    comm = "mock-llm"
  }
  port "http" {
    number  = var.port
    address = "127.0.0.1"
  }
  ready {
    http    = "/healthz"
    timeout = "5s"
  }
  restart {
    policy  = "on-failure"
    max     = 3
    backoff = "2s"
  }
  slurm {
    partition = "gpu"
    gres      = "gpu:1"
    time      = "02:00:00"
  }
}

launch "dispatched" {
  dispatch = ["run.sh", "--arm", "2"]
  env = {
    MODE = "fast"
  }
}
`

func storyTree(t testing.TB) string {
	t.Setenv("MOCK_LLM_KEY", canary)
	return testsupport.WriteTree(t, map[string]string{
		"spec.hcl":     storySpec,
		".env":         "HF_HUB_ENABLE_HF_TRANSFER=1\nMODEL=" + canary + "\n",
		"bin/mock-llm": "#!/bin/sh\nexit 0\n",
		"run.sh":       "#!/bin/bash\nexec sleep 1000\n",
	})
}

func TestRenderUnknownEngine(t *testing.T) {
	l := load(t, storyTree(t), "mock-llm")
	_, err := Render(context.Background(), l, Options{Engine: "docker"})
	if err == nil || !strings.Contains(err.Error(), `unknown engine "docker"`) {
		t.Fatalf("err = %v", err)
	}
	var oe *OptionError
	if !errors.Is(err, ErrUnknownEngine) || !errors.As(err, &oe) || oe.Field != "Engine" || oe.Value != "docker" {
		t.Errorf("err = %#v, want an *OptionError of Engine \"docker\" wrapping ErrUnknownEngine", err)
	}
	for _, o := range []Options{{Engine: Systemd, Dir: "rel"}, {Engine: Kubernetes, Image: "x", Kind: "job"}, {Engine: Kubernetes}} {
		_, err := Render(context.Background(), l, o)
		if !errors.As(err, &oe) || errors.Is(err, ErrUnknownEngine) {
			t.Errorf("%+v: err = %v, want an *OptionError", o, err)
		}
	}
}

func TestRenderSecretPart(t *testing.T) {
	dir := testsupport.WriteTree(t, map[string]string{"key.txt": canary, "spec.hcl": `launch "a" {
  command = ["sleep", env("ARG"), "--key=${env("KEY")}/$x", "a b${env("ARG")}"]
}
launch "f" {
  command = ["sleep", file("key.txt")]
}`})
	l := load(t, dir, "a")
	// An env() in an argument is the engine's own reference to the
	// variable, which the engine supplies like a secret.
	unit := render(t, l, Options{Engine: Systemd, Childproof: "/bin/true"})
	for _, want := range []string{
		`ExecStart=sleep ${ARG} --key=${KEY}/$$x "a b${ARG}"` + "\n",
		"#   ARG=<secret; ExecStart= reads it as ${ARG}>\n", "#   KEY=<secret; ExecStart= reads it as ${KEY}>\n",
		"EnvironmentFile=/etc/childproof/a.env\n",
	} {
		if !strings.Contains(unit, want) {
			t.Errorf("unit lacks %q:\n%s", want, unit)
		}
	}
	systemdVerify(t, "a", unit)
	manifest := render(t, l, Options{Engine: Kubernetes, Image: "img"})
	for _, want := range []string{`- "$(ARG)"` + "\n", `- "--key=$(KEY)/$$x"` + "\n", `- "a b$(ARG)"` + "\n", "key: ARG\n", "key: KEY\n"} {
		if !strings.Contains(manifest, want) {
			t.Errorf("manifest lacks %q:\n%s", want, manifest)
		}
	}
	job := render(t, l, Options{Engine: Nomad})
	for _, want := range []string{`args     = ["$${ARG}", "--key=$${KEY}/$x", "a b$${ARG}"]`, "ARG={{", "KEY={{"} {
		if !strings.Contains(job, want) {
			t.Errorf("job lacks %q:\n%s", want, job)
		}
	}
	// SLURM's step runs childproof, which reads the spec on the node.
	script := render(t, l, Options{Engine: Slurm})
	if !strings.Contains(script, "never written here: ARG, KEY.") || !strings.Contains(script, "for name in ARG KEY; do") {
		t.Errorf("script:\n%s", script)
	}
	// file() contents cannot be a reference.
	for _, e := range []Engine{Systemd, Kubernetes, Nomad} {
		_, err := Render(context.Background(), load(t, dir, "f"), Options{Engine: e, Image: "img"})
		var ue *UnsupportedError
		if !asUnsupported(err, &ue) || ue.Feature != "command[1]" || strings.Contains(err.Error(), canary) {
			t.Errorf("%s: err = %v, want an UnsupportedError for command[1]", e, err)
		}
	}
}

// A value file() read is a secret too: a reference, never the contents.
func TestRenderFileValue(t *testing.T) {
	dir := testsupport.WriteTree(t, map[string]string{
		"key.txt": canary,
		"spec.hcl": `launch "a" {
  command = ["sleep", "1"]
  env     = { KEY = file("key.txt") }
}`})
	l := load(t, dir, "a")
	for _, e := range Engines {
		out := render(t, l, Options{Engine: e, Image: "img"})
		if e != Slurm && !strings.Contains(out, "KEY") {
			t.Errorf("%s: KEY is not referenced:\n%s", e, out)
		}
	}
}

// A required name only inherit provides has no source in a service: it
// becomes a reference, like a secret.
func TestRequiredFromInherit(t *testing.T) {
	dir := testsupport.WriteTree(t, map[string]string{"spec.hcl": `launch "api" {
  command = ["sleep", "1"]
  inherit = ["PATH", "HF_TOKEN"]
  require = ["HF_TOKEN"]
}`})
	l := load(t, dir, "api")
	unit := render(t, l, Options{Engine: Systemd})
	if !strings.Contains(unit, "#   HF_TOKEN=<required; the caller's value under run (inherit)>\n") || !strings.Contains(unit, "EnvironmentFile=/etc/childproof/api.env\n") {
		t.Errorf("unit:\n%s", unit)
	}
	manifest := render(t, l, Options{Engine: Kubernetes, Image: "img"})
	if !strings.Contains(manifest, "- name: HF_TOKEN\n") || !strings.Contains(manifest, "key: HF_TOKEN\n") {
		t.Errorf("manifest:\n%s", manifest)
	}
	job := render(t, l, Options{Engine: Nomad})
	if !strings.Contains(job, "HF_TOKEN={{ .HF_TOKEN.Value | toJSON }}") {
		t.Errorf("job:\n%s", job)
	}
}

// An unsupported part of the spec comes back as a diagnostic at its
// source range: Render sets the error's Subject from Ranges.Parts.
func TestUnsupportedSubject(t *testing.T) {
	dir := testsupport.WriteTree(t, map[string]string{"key.txt": canary, "spec.hcl": `launch "f" {
  command = ["sleep", file("key.txt")]
}`})
	_, err := Render(context.Background(), load(t, dir, "f"), Options{Engine: Systemd})
	var ue *UnsupportedError
	if !asUnsupported(err, &ue) || ue.Part != "command[1]" {
		t.Fatalf("err = %v, want an UnsupportedError for command[1]", err)
	}
	d := ue.Diagnostic()
	if d.Subject == nil || filepath.Base(d.Subject.Filename) != "spec.hcl" || d.Subject.Start.Line != 2 || d.Subject.Start.Column != 23 {
		t.Fatalf("diagnostic subject = %+v, want spec.hcl:2:23", d.Subject)
	}
	if d.Summary != "systemd cannot express command[1]" || d.Detail != ue.Reason || d.Severity != hcl.DiagError {
		t.Errorf("diagnostic = %+v", d)
	}
}
