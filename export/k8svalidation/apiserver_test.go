package k8svalidation

import (
	"context"
	"strings"
	"sync"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	genericapirequest "k8s.io/apiserver/pkg/endpoints/request"
	"k8s.io/apiserver/pkg/registry/rest"
	"k8s.io/apiserver/pkg/warning"
	"k8s.io/kubernetes/pkg/api/legacyscheme"
	"k8s.io/kubernetes/pkg/apis/apps"
	_ "k8s.io/kubernetes/pkg/apis/apps/install" // registers apps/v1's defaults and conversions
	"k8s.io/kubernetes/pkg/apis/core"
	_ "k8s.io/kubernetes/pkg/apis/core/install" // registers core/v1's defaults and conversions
	"k8s.io/kubernetes/pkg/registry/apps/deployment"
	"k8s.io/kubernetes/pkg/registry/core/pod"
	"sigs.k8s.io/yaml"
)

// warnings collects what the API server would send back as Warning headers.
type warnings struct {
	mu   sync.Mutex
	list []string
}

func (w *warnings) AddWarning(agent, text string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.list = append(w.list, text)
}

// admit runs manifest (one Deployment or Pod, YAML) through what the API
// server does to a create request before it stores the object: a strict
// decode into the versioned type, the scheme's defaults, conversion to the
// internal type, and rest.BeforeCreate with the resource's own registry
// strategy (PrepareForCreate, the strategy's validation — core's
// ValidatePodCreate or apps' ValidateDeployment with the options the
// registry derives —, the common ObjectMeta validation, the declarative
// validation and WarningsOnCreate), in the namespace "default" that
// `kubectl apply` would send for a manifest without one. It returns the
// API server's refusal (nil: admitted) and its warnings.
func admit(t *testing.T, manifest string) (error, []string) {
	t.Helper()
	var tm struct {
		Kind string `json:"kind"`
	}
	if err := yaml.Unmarshal([]byte(manifest), &tm); err != nil {
		t.Fatalf("decode: %v\n%s", err, manifest)
	}
	var versioned, internal runtime.Object
	var strategy rest.RESTCreateStrategy
	ri := &genericapirequest.RequestInfo{IsResourceRequest: true, Verb: "create", APIPrefix: "api", APIVersion: "v1", Namespace: "default"}
	switch tm.Kind {
	case "Deployment":
		versioned, internal, strategy = &appsv1.Deployment{}, &apps.Deployment{}, deployment.Strategy
		ri.APIPrefix, ri.APIGroup, ri.Resource = "apis", "apps", "deployments"
	case "Pod":
		versioned, internal, strategy = &corev1.Pod{}, &core.Pod{}, pod.Strategy
		ri.Resource = "pods"
	default:
		t.Fatalf("kind %q is neither Deployment nor Pod:\n%s", tm.Kind, manifest)
	}
	if err := yaml.UnmarshalStrict([]byte(manifest), versioned); err != nil {
		t.Fatalf("strict decode: %v\n%s", err, manifest)
	}
	legacyscheme.Scheme.Default(versioned)
	if err := legacyscheme.Scheme.Convert(versioned, internal, nil); err != nil {
		t.Fatalf("convert to the internal type: %v", err)
	}
	return create(internal, strategy, ri)
}

// create is rest.BeforeCreate on obj as the API server's create handler
// calls it: the request's namespace and RequestInfo in the context, the
// object's system fields (uid, creationTimestamp) filled in.
func create(obj runtime.Object, strategy rest.RESTCreateStrategy, ri *genericapirequest.RequestInfo) (error, []string) {
	w := &warnings{}
	m, err := meta.Accessor(obj)
	if err != nil {
		return err, nil
	}
	ri.Name = m.GetName()
	ctx := genericapirequest.WithNamespace(context.Background(), ri.Namespace)
	ctx = genericapirequest.WithRequestInfo(ctx, ri)
	ctx = warning.WithWarningRecorder(ctx, w)
	rest.FillObjectMetaSystemFields(m)
	err = rest.BeforeCreate(strategy, ctx, obj)
	return err, w.list
}

// mustAdmit fails t unless the API server admits manifest without a warning.
func mustAdmit(t *testing.T, what, manifest string) {
	t.Helper()
	err, warns := admit(t, manifest)
	if err != nil {
		t.Errorf("%s: the API server refuses it: %v\n%s", what, err, manifest)
	}
	if len(warns) > 0 {
		t.Errorf("%s: the API server warns: %s\n%s", what, strings.Join(warns, "; "), manifest)
	}
}
