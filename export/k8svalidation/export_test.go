package k8svalidation

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/childproof/childproof/export"
	"github.com/childproof/childproof/schema"
)

// canary is planted in the caller's environment and in the env file: no
// manifest may hold it.
const canary = "k8svalidation-canary-5d0e"

// variants are the manifests each launch is exported as: a Deployment and
// a Pod, each with childproof in the image and with --childproof-image.
var variants = []export.Options{
	{Engine: export.Kubernetes, Image: "registry.example/app:1"},
	{Engine: export.Kubernetes, Image: "registry.example/app:1", ChildproofImage: "registry.example/childproof:1"},
	{Engine: export.Kubernetes, Kind: export.KindPod, Image: "registry.example/app:1"},
	{Engine: export.Kubernetes, Kind: export.KindPod, Image: "registry.example/app:1", ChildproofImage: "registry.example/childproof:1"},
}

func variantName(o export.Options) string {
	k := string(o.Kind)
	if k == "" {
		k = string(export.KindDeployment)
	}
	if o.ChildproofImage != "" {
		k += "+childproof-image"
	}
	return k
}

// exportAll exports every launch of the spec file at path in every
// variant and has the API server admit each manifest. It returns how many
// were admitted and the launches the export refused (an UnsupportedError:
// exit 2 with the reason, logged).
func exportAll(t *testing.T, path string) (admitted int, refused map[string]bool) {
	t.Helper()
	f, _, diags := schema.Load(path, schema.LoadOptions{LookupEnv: export.LookupEnv, MissingProgramOK: true})
	if diags.HasErrors() {
		t.Fatalf("load %s: %v", path, diags)
	}
	refused = map[string]bool{}
	for _, l := range f.Launches {
		for _, o := range variants {
			what := l.Name + " as " + variantName(o)
			out, err := export.Render(context.Background(), l, o)
			var unsupported *export.UnsupportedError
			if errors.As(err, &unsupported) {
				t.Logf("%s: refused by export (%v)", what, err)
				refused[l.Name] = true
				continue
			}
			if err != nil {
				t.Errorf("%s: %v", what, err)
				continue
			}
			if strings.Contains(string(out), canary) {
				t.Errorf("%s: the manifest holds a secret value", what)
			}
			mustAdmit(t, what, string(out))
			admitted++
		}
	}
	return admitted, refused
}

// TestExamplesAdmitted: every launch of every shipped example, exported
// to Kubernetes, is admitted by the API server's validation.
func TestExamplesAdmitted(t *testing.T) {
	specs, err := filepath.Glob("../../examples/*/*.hcl")
	if err != nil || len(specs) == 0 {
		t.Fatalf("no example specs: %v", err)
	}
	t.Setenv("MOCK_LLM_KEY", canary)
	admitted := 0
	for _, spec := range specs {
		if _, _, diags := schema.Load(spec, schema.LoadOptions{LookupEnv: export.LookupEnv, MissingProgramOK: true}); diags.HasErrors() {
			t.Logf("%s: an example of a bad spec, skipped", spec)
			continue
		}
		t.Run(filepath.Base(filepath.Dir(spec))+"/"+filepath.Base(spec), func(t *testing.T) {
			n, _ := exportAll(t, spec)
			admitted += n
		})
	}
	// 6 example directories, several launches each, 4 variants.
	if admitted < 40 {
		t.Errorf("only %d example manifests admitted", admitted)
	}
	t.Logf("%d example manifests admitted", admitted)
}

// edgeSpec holds the launches a newcomer's spec may have that the
// examples do not: a launch named childproof (the init container's name),
// env values Kubernetes reads specially ($(NAME), $$, quotes, an empty
// value, a newline), secrets from env() and an env file, every readiness
// kind (none, timeout only, the TCP connect, http with its status list,
// exec, log), several ports with the longest port name, a user, a dir,
// a dispatch script and a oneshot.
const edgeSpec = `
launch "childproof" {
  command = ["/usr/bin/srv", "--listen", "0.0.0.0:8080"]
  port "http" {
    number               = 8080
    address              = "0.0.0.0"
    allow_all_interfaces = true
  }
}

launch "env-values" {
  command  = ["/usr/bin/srv", "$(HOME)", "$$x", "it's \"quoted\""]
  env_file = ".env"
  env = {
    DOLLAR_PAREN = "$(HOME)/x"
    DOUBLE       = "$$HOME"
    QUOTED       = "\"x\" 'y'"
    EMPTY        = ""
    NEWLINE      = "a\nb"
    UNICODE      = "naïve ✓"
    KEY          = env("API_KEY")
    KEY_DEFAULT  = env("API_KEY2", "dflt")
    _UNDERSCORE  = "1"
  }
  secret  = ["QUOTED"]
  require = ["KEY"]
}

launch "ready-none" {
  command = ["/usr/bin/srv"]
}

launch "ready-timeout" {
  command = ["/usr/bin/srv"]
  ready {
    timeout = "10m"
  }
}

launch "ready-tcp" {
  command = ["/usr/bin/srv"]
  port "a-long-port-nam" {
    number = 9000
  }
  port "metrics" {
    number = 9001
  }
  ready {}
}

launch "ready-http" {
  command = ["/usr/bin/srv"]
  port "http" {
    number = 8081
  }
  ready {
    http    = "/healthz?full=1"
    status  = [200, 503]
    timeout = "90s"
  }
}

launch "ready-exec" {
  command = ["/usr/bin/redis-server"]
  port "redis" {
    number = 6379
  }
  ready {
    exec = ["redis-cli", "-p", "6379", "ping"]
  }
}

launch "ready-exec-env" {
  command = ["/usr/bin/srv"]
  env = {
    PASSWORD = env("PASSWORD")
  }
  secret = ["PASSWORD"]
  ready {
    exec = ["sh", "-c", "test -n \"$PASSWORD\""]
  }
}

launch "ready-log" {
  command = ["/usr/bin/srv"]
  ready {
    log     = "listening"
    timeout = "1s"
  }
}

launch "dispatched" {
  dispatch = ["run.sh", "--arm", "2"]
  dir      = "sub"
  user     = "nobody"
  restart {
    policy = "on-failure"
    max    = 3
  }
}

launch "oneshot" {
  command = ["/usr/bin/migrate"]
  oneshot = true
}
`

// TestEdgeCasesAdmitted: the launches of edgeSpec, in every variant, are
// admitted by the API server's validation without a warning, but for the
// oneshot, which export refuses (exit 2: Kubernetes' check needs a live
// worker).
func TestEdgeCasesAdmitted(t *testing.T) {
	dir := t.TempDir()
	for name, text := range map[string]string{
		"childproof.hcl": edgeSpec,
		".env":           "FROM_FILE=1\nMODEL=" + canary + "\n",
		"sub/run.sh":     "#!/bin/bash\nexec /usr/bin/srv\n",
	} {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("API_KEY", canary)
	t.Setenv("PASSWORD", canary)
	n, refused := exportAll(t, filepath.Join(dir, "childproof.hcl"))
	if len(refused) != 1 || !refused["oneshot"] {
		t.Errorf("refused by export: %v, want only oneshot", refused)
	}
	const launches = 11 // edgeSpec's, the oneshot too
	if want := (launches - 1) * len(variants); n != want {
		t.Errorf("%d edge-case manifests admitted, want %d", n, want)
	}
}

// TestAdmitRefusesDuplicateContainerNames shows that admit is the API
// server's judgement, not a formality: the manifest export wrote before
// issue 42 for a launch named childproof with --childproof-image (init
// container and app container both named childproof) is refused with the
// API server's "Duplicate value", and today's manifest is admitted.
func TestAdmitRefusesDuplicateContainerNames(t *testing.T) {
	dir := t.TempDir()
	spec := "launch \"childproof\" {\n  command = [\"/usr/bin/srv\"]\n}\n"
	if err := os.WriteFile(filepath.Join(dir, "childproof.hcl"), []byte(spec), 0o644); err != nil {
		t.Fatal(err)
	}
	f, _, diags := schema.Load(filepath.Join(dir, "childproof.hcl"), schema.LoadOptions{LookupEnv: export.LookupEnv, MissingProgramOK: true})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	for _, o := range variants {
		if o.ChildproofImage == "" {
			continue
		}
		out, err := export.Render(context.Background(), f.Launches[0], o)
		if err != nil {
			t.Fatal(err)
		}
		mustAdmit(t, variantName(o), string(out))
		old := strings.Replace(string(out), "- name: childproof-install\n", "- name: childproof\n", 1)
		if old == string(out) {
			t.Fatalf("%s: no init container named childproof-install:\n%s", variantName(o), out)
		}
		err, _ = admit(t, old)
		if err == nil || !strings.Contains(err.Error(), `initContainers[0].name: Duplicate value: "childproof"`) {
			t.Errorf("%s with two containers named childproof: the API server says %v, want a Duplicate value", variantName(o), err)
		}
	}
}
