package export

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/childproof/childproof/internal/testsupport"
	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	"sigs.k8s.io/yaml"
)

// decodeK8s reads a manifest strictly into obj (a k8s.io/api type): an
// unknown or misspelt field, or a wrong type, is an error. It then checks
// that the typed object says everything the manifest says, so that no
// field was dropped on the way.
func decodeK8s(t *testing.T, manifest string, obj any) {
	t.Helper()
	if err := yaml.UnmarshalStrict([]byte(manifest), obj); err != nil {
		t.Fatalf("strict decode: %v\n%s", err, manifest)
	}
	var fromText, fromObj map[string]any
	if err := yaml.Unmarshal([]byte(manifest), &fromText); err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(obj)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &fromObj); err != nil {
		t.Fatal(err)
	}
	// What the types add on their own.
	delete(fromObj, "status")
	prune(fromObj)
	if diff := cmp.Diff(fromText, fromObj); diff != "" {
		t.Errorf("the typed object differs from the manifest (-manifest +typed):\n%s", diff)
	}
}

// prune drops the empty objects and nulls the k8s types write for unset
// fields (creationTimestamp: null, resources: {}, strategy: {}).
func prune(m map[string]any) {
	for k, v := range m {
		switch x := v.(type) {
		case nil:
			delete(m, k)
		case map[string]any:
			prune(x)
			if len(x) == 0 && k != "emptyDir" {
				delete(m, k)
			}
		case []any:
			for _, e := range x {
				if em, ok := e.(map[string]any); ok {
					prune(em)
				}
			}
		}
	}
}

func TestKubernetesDeployment(t *testing.T) {
	l := load(t, storyTree(t), "mock-llm")
	// on-failure: a Deployment restarts after every exit; said, not refused.
	if out := render(t, l, Options{Engine: Kubernetes, Image: "registry.example/mock-llm:1"}); !strings.Contains(out,
		`# restart.policy "on-failure": a Deployment restarts its pod after every exit, a clean one too (restartPolicy Always); export with --kind pod for OnFailure.`) {
		t.Errorf("manifest:\n%s", out)
	}
	l.Restart.Policy = "never"
	if _, err := Render(t.Context(), l, Options{Engine: Kubernetes, Image: "img"}); err == nil || !strings.Contains(err.Error(), `k8s cannot express restart.policy "never"`) {
		t.Errorf("never: err = %v", err)
	}
	l.Restart.Policy = "always"
	out := render(t, l, Options{Engine: Kubernetes, Image: "registry.example/mock-llm:1", Dir: "/app"})
	var d appsv1.Deployment
	decodeK8s(t, out, &d)
	if d.Kind != "Deployment" || d.Name != "mock-llm" || *d.Spec.Replicas != 1 {
		t.Errorf("deployment: %+v", d.TypeMeta)
	}
	ps := d.Spec.Template.Spec
	if ps.RestartPolicy != corev1.RestartPolicyAlways {
		t.Errorf("restartPolicy %q", ps.RestartPolicy)
	}
	if len(ps.Containers) != 1 || len(ps.InitContainers) != 0 {
		t.Fatalf("containers: %+v", ps)
	}
	c := ps.Containers[0]
	if diff := cmp.Diff([]string{"/app/bin/mock-llm"}, c.Command); diff != "" {
		t.Error(diff)
	}
	// Kubernetes reduces $$ to $ in args (and expands $(NAME)): every $ is
	// written doubled.
	if diff := cmp.Diff([]string{"--addr", "127.0.0.1:18081", "--greeting", `100% "ok" $$HOME; it's`}, c.Args); diff != "" {
		t.Error(diff)
	}
	if c.WorkingDir != "/app" || c.Image != "registry.example/mock-llm:1" {
		t.Errorf("workingDir %q image %q", c.WorkingDir, c.Image)
	}
	wantEnv := []corev1.EnvVar{
		{Name: "HF_HUB_ENABLE_HF_TRANSFER", Value: "0"},
		{Name: "LOG_LEVEL", Value: "debug"},
		{Name: "MOCK_LLM_KEY", ValueFrom: &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{LocalObjectReference: corev1.LocalObjectReference{Name: "mock-llm"}, Key: "MOCK_LLM_KEY"}}},
		{Name: "TOKEN", ValueFrom: &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{LocalObjectReference: corev1.LocalObjectReference{Name: "mock-llm"}, Key: "TOKEN"}}},
	}
	if diff := cmp.Diff(wantEnv, c.Env); diff != "" {
		t.Errorf("env (-want +got):\n%s", diff)
	}
	if len(c.EnvFrom) != 1 || c.EnvFrom[0].SecretRef == nil || c.EnvFrom[0].SecretRef.Name != "mock-llm-env-file" {
		t.Errorf("envFrom: %+v", c.EnvFrom)
	}
	if diff := cmp.Diff([]corev1.ContainerPort{{Name: "http", ContainerPort: 18081, Protocol: corev1.ProtocolTCP}}, c.Ports); diff != "" {
		t.Error(diff)
	}
	wantProbe := []string{"childproof", "verify", "--state-dir", "/childproof/state", "--pid", "1",
		"--env", "HF_HUB_ENABLE_HF_TRANSFER=0", "--env", "LOG_LEVEL=debug", "--env", "MOCK_LLM_KEY", "--env", "TOKEN",
		"--port", "18081", "--comm", "mock-llm"}
	if pr := c.StartupProbe; pr == nil || pr.Exec == nil {
		t.Fatal("startup probe missing")
	} else if diff := cmp.Diff(wantProbe, pr.Exec.Command); diff != "" {
		t.Errorf("startup probe (-want +got):\n%s", diff)
	}
	// The readiness probe is the spec's own kind: ready.http's GET.
	if pr := c.ReadinessProbe; pr == nil || pr.HTTPGet == nil || pr.HTTPGet.Path != "/healthz" || pr.HTTPGet.Port.IntValue() != 18081 || pr.Exec != nil {
		t.Fatalf("readiness probe: %+v", c.ReadinessProbe)
	}
	if c.StartupProbe.FailureThreshold != 5 || c.StartupProbe.PeriodSeconds != 1 {
		t.Errorf("startup probe: %+v", c.StartupProbe)
	}
	// One slow readiness probe does not make the pod unready.
	if c.ReadinessProbe.FailureThreshold != 3 {
		t.Errorf("readiness probe: %+v", c.ReadinessProbe)
	}
	if !strings.Contains(out, "needs CAP_SYS_PTRACE: add securityContext.capabilities.add: [SYS_PTRACE]") {
		t.Errorf("manifest lacks the CAP_SYS_PTRACE note:\n%s", out)
	}
	for _, want := range []string{"kubectl create secret generic mock-llm-env-file --from-env-file=", "kubectl create secret generic mock-llm --from-env-file=FILE", "kubectl apply"} {
		if !strings.Contains(out, want) {
			t.Errorf("manifest lacks %q:\n%s", want, out)
		}
	}
}

func TestKubernetesPod(t *testing.T) {
	l := load(t, storyTree(t), "dispatched")
	out := render(t, l, Options{Engine: Kubernetes, Kind: KindPod, Image: "img", ChildproofImage: "childproof:dev"})
	var pod corev1.Pod
	decodeK8s(t, out, &pod)
	if pod.Kind != "Pod" || pod.APIVersion != "v1" || pod.Spec.RestartPolicy != corev1.RestartPolicyNever {
		t.Errorf("pod: %+v %q", pod.TypeMeta, pod.Spec.RestartPolicy)
	}
	if len(pod.Spec.InitContainers) != 1 || pod.Spec.InitContainers[0].Image != "childproof:dev" ||
		!slices.Equal(pod.Spec.InitContainers[0].Command, []string{"/usr/local/bin/childproof", "install", "/childproof"}) {
		t.Fatalf("init containers (childproof copies itself: no cp in a scratch image): %+v", pod.Spec.InitContainers)
	}
	c := pod.Spec.Containers[0]
	if got := c.ReadinessProbe.Exec.Command[0]; got != "/childproof/childproof" {
		t.Errorf("probe runs %q", got)
	}
	if diff := cmp.Diff([]string{"/bin/bash"}, c.Command); diff != "" {
		t.Error(diff)
	}
	if len(pod.Spec.Volumes) != 1 || pod.Spec.Volumes[0].EmptyDir == nil {
		t.Errorf("volumes: %+v", pod.Spec.Volumes)
	}
}

func TestKubernetesRefuses(t *testing.T) {
	dir := testsupport.WriteTree(t, map[string]string{"spec.hcl": `launch "Mock_LLM" {
  command = ["sleep", "1"]
}`})
	l := load(t, dir, "Mock_LLM")
	_, err := Render(t.Context(), l, Options{Engine: Kubernetes, Image: "img"})
	if err == nil || !strings.Contains(err.Error(), `k8s cannot express launch name "Mock_LLM"`) {
		t.Errorf("err = %v", err)
	}
	_, err = Render(t.Context(), l, Options{Engine: Kubernetes})
	if err == nil || !strings.Contains(err.Error(), "needs Options.Image") {
		t.Errorf("err = %v", err)
	}
}

func TestToYAML(t *testing.T) {
	in := map[string]any{"k": []any{map[string]any{"a": "on", "b": []any{}, "c": map[string]any{}}, "x<y>&z", 1.5, true, nil,
		"0", "1e3", "0x1F", "~", "Null", "NO", "y", "-", "- x", "a: b", "#c", "/abs/path", "apps/v1", "plain-word", "", " lead", "a\nb", "é"}, "on": "y", "1": "x"}
	out, err := toYAML(in)
	if err != nil {
		t.Fatal(err)
	}
	var back map[string]any
	if err := yaml.UnmarshalStrict(out, &back); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if diff := cmp.Diff(in, back); diff != "" {
		t.Errorf("round trip (-in +out):\n%s\n%s", diff, out)
	}
}

// TestNameCheckers compares the name checks with Kubernetes' own
// validation on every short string over an alphabet that covers each
// character class and its boundaries, and on long ones.
func TestNameCheckers(t *testing.T) {
	alphabet := []byte("az09-_.A ")
	var walk func(b []byte, depth int)
	walk = func(b []byte, depth int) {
		s := string(b)
		if got, want := isDNSLabel(s), len(validation.IsDNS1123Label(s)) == 0; got != want {
			t.Errorf("isDNSLabel(%q) = %v, Kubernetes says %v", s, got, want)
		}
		if got, want := isPortName(s), len(validation.IsValidPortName(s)) == 0; got != want {
			t.Errorf("isPortName(%q) = %v, Kubernetes says %v", s, got, want)
		}
		if depth == 0 {
			return
		}
		for _, c := range alphabet {
			walk(append(b, c), depth-1)
		}
	}
	walk(nil, 4)
	for _, n := range []int{14, 15, 16, 62, 63, 64} {
		s := strings.Repeat("a", n)
		if got, want := isDNSLabel(s), len(validation.IsDNS1123Label(s)) == 0; got != want {
			t.Errorf("isDNSLabel(%d a's) = %v, Kubernetes says %v", n, got, want)
		}
		if got, want := isPortName(s), len(validation.IsValidPortName(s)) == 0; got != want {
			t.Errorf("isPortName(%d a's) = %v, Kubernetes says %v", n, got, want)
		}
	}
}

// TestKubernetesContainerNamesUnique: a launch named childproof exported
// with --childproof-image gets an init container of another name, as the
// API server requires (container names are unique across initContainers
// and containers: "Duplicate value"); each name is a DNS-1123 label.
func TestKubernetesContainerNamesUnique(t *testing.T) {
	dir := t.TempDir()
	spec := `launch "childproof" {
  command = ["/usr/bin/srv"]
  port "http" {
    number = 8080
  }
}
`
	if err := os.WriteFile(filepath.Join(dir, "spec.hcl"), []byte(spec), 0o644); err != nil {
		t.Fatal(err)
	}
	l := load(t, dir, "childproof")
	for _, kind := range []Kind{KindDeployment, KindPod} {
		out := render(t, l, Options{Engine: Kubernetes, Kind: kind, Image: "img", ChildproofImage: "childproof:dev"})
		var ps corev1.PodSpec
		if kind == KindPod {
			var pod corev1.Pod
			decodeK8s(t, out, &pod)
			ps = pod.Spec
		} else {
			var d appsv1.Deployment
			decodeK8s(t, out, &d)
			ps = d.Spec.Template.Spec
		}
		seen := map[string]bool{}
		for _, c := range append(slices.Clone(ps.InitContainers), ps.Containers...) {
			if seen[c.Name] {
				t.Errorf("%s: container name %q twice:\n%s", kind, c.Name, out)
			}
			seen[c.Name] = true
			if errs := validation.IsDNS1123Label(c.Name); len(errs) > 0 {
				t.Errorf("%s: container name %q: %v", kind, c.Name, errs)
			}
		}
		if ps.Containers[0].Name != "childproof" || len(ps.InitContainers) != 1 || ps.InitContainers[0].Name != "childproof-install" {
			t.Errorf("%s: names %q / %+v", kind, ps.Containers[0].Name, ps.InitContainers)
		}
	}
}
