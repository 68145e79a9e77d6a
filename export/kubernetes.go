package export

import (
	"fmt"
	"math"
	"os/user"
	"slices"
	"strconv"
	"strings"

	"github.com/childproof/childproof/schema"
)

// The Kubernetes objects below carry only the fields export writes, under
// the JSON names of k8s.io/api (apps/v1 Deployment, core/v1 Pod); the
// tests decode every output strictly into those types.

type k8sMeta struct {
	Name        string            `json:"name,omitempty"`
	Labels      map[string]string `json:"labels,omitempty"`
	Annotations map[string]string `json:"annotations,omitempty"`
}

type k8sDeployment struct {
	APIVersion string            `json:"apiVersion"`
	Kind       string            `json:"kind"`
	Metadata   k8sMeta           `json:"metadata"`
	Spec       k8sDeploymentSpec `json:"spec"`
}

type k8sDeploymentSpec struct {
	Replicas int            `json:"replicas"`
	Selector k8sSelector    `json:"selector"`
	Template k8sPodTemplate `json:"template"`
}

type k8sSelector struct {
	MatchLabels map[string]string `json:"matchLabels"`
}

type k8sPodTemplate struct {
	Metadata k8sMeta    `json:"metadata"`
	Spec     k8sPodSpec `json:"spec"`
}

type k8sPod struct {
	APIVersion string     `json:"apiVersion"`
	Kind       string     `json:"kind"`
	Metadata   k8sMeta    `json:"metadata"`
	Spec       k8sPodSpec `json:"spec"`
}

type k8sPodSpec struct {
	RestartPolicy string `json:"restartPolicy"`
	// TerminationGracePeriodSeconds is the spec's stop.timeout (nil
	// without one: Kubernetes' 30s).
	TerminationGracePeriodSeconds *int64         `json:"terminationGracePeriodSeconds,omitempty"`
	InitContainers                []k8sContainer `json:"initContainers,omitempty"`
	Containers                    []k8sContainer `json:"containers"`
	Volumes                       []k8sVolume    `json:"volumes,omitempty"`
}

type k8sContainer struct {
	Name           string       `json:"name"`
	Image          string       `json:"image"`
	Command        []string     `json:"command,omitempty"`
	Args           []string     `json:"args,omitempty"`
	WorkingDir     string       `json:"workingDir,omitempty"`
	Ports          []k8sPort    `json:"ports,omitempty"`
	EnvFrom        []k8sEnvFrom `json:"envFrom,omitempty"`
	Env            []k8sEnv     `json:"env,omitempty"`
	VolumeMounts   []k8sMount   `json:"volumeMounts,omitempty"`
	StartupProbe   *k8sProbe    `json:"startupProbe,omitempty"`
	ReadinessProbe *k8sProbe    `json:"readinessProbe,omitempty"`
	// Lifecycle holds the preStop hook that sends the spec's stop signal.
	Lifecycle *k8sLifecycle `json:"lifecycle,omitempty"`
	// SecurityContext holds runAsUser/runAsGroup (the spec's user/group).
	SecurityContext *k8sSecurityContext `json:"securityContext,omitempty"`
}

type k8sSecurityContext struct {
	RunAsUser  *int64 `json:"runAsUser,omitempty"`
	RunAsGroup *int64 `json:"runAsGroup,omitempty"`
}

type k8sPort struct {
	Name          string `json:"name,omitempty"`
	ContainerPort int    `json:"containerPort"`
	Protocol      string `json:"protocol"`
}

type k8sEnvFrom struct {
	SecretRef k8sLocalRef `json:"secretRef"`
}

type k8sLocalRef struct {
	Name string `json:"name"`
}

type k8sEnv struct {
	Name      string        `json:"name"`
	Value     string        `json:"value,omitempty"`
	ValueFrom *k8sEnvSource `json:"valueFrom,omitempty"`
}

type k8sEnvSource struct {
	SecretKeyRef k8sKeyRef `json:"secretKeyRef"`
}

type k8sKeyRef struct {
	Name string `json:"name"`
	Key  string `json:"key"`
}

type k8sMount struct {
	Name      string `json:"name"`
	MountPath string `json:"mountPath"`
}

type k8sVolume struct {
	Name     string   `json:"name"`
	EmptyDir struct{} `json:"emptyDir"`
}

type k8sProbe struct {
	Exec             *k8sExec    `json:"exec,omitempty"`
	HTTPGet          *k8sHTTPGet `json:"httpGet,omitempty"`
	PeriodSeconds    int         `json:"periodSeconds"`
	TimeoutSeconds   int         `json:"timeoutSeconds"`
	FailureThreshold int         `json:"failureThreshold"`
}

// k8sHTTPGet is an httpGet probe: Kubernetes counts 200–399 as success.
type k8sHTTPGet struct {
	Path string `json:"path"`
	Port int    `json:"port"`
}

type k8sExec struct {
	Command []string `json:"command"`
}

// Kind is the Kubernetes object Render writes (Options.Kind; its string
// is the value of --kind).
type Kind string

// Kubernetes object kinds, the values of Options.Kind.
const (
	KindDeployment Kind = "deployment"
	KindPod        Kind = "pod"
)

// k8sVolumeDir is where the pod's shared volume is mounted: the state dir
// the probes use and, with Options.ChildproofImage, the childproof binary.
const k8sVolumeDir = "/childproof"

// kubernetes renders a Deployment (or a Pod): the notes and the
// container, its probes, then the object as YAML under a comment.
func (p *plan) kubernetes() ([]byte, error) {
	kind, restart, err := p.k8sKindRestart()
	if err != nil {
		return nil, err
	}
	if err := p.checkKubectlEnvFile(); err != nil {
		return nil, err
	}
	notes := p.k8sRestartNotes(kind)
	c, notes := p.k8sContainer(notes)
	notes = p.k8sEnv(&c, notes)
	inits, notes := p.k8sProbes(&c, notes)
	notes = p.k8sStop(&c, notes)
	y, err := toYAML(p.k8sObject(kind, restart, inits, c))
	if err != nil {
		return nil, err
	}
	var b strings.Builder
	p.k8sComment(&b, notes)
	b.WriteString("---\n")
	b.Write(y)
	return []byte(b.String()), nil
}

// k8sKindRestart checks what Kubernetes needs (a known Kind, an Image,
// a launch name that is a DNS label, a restart policy the kind can
// express) and returns the kind and the pod's restartPolicy.
func (p *plan) k8sKindRestart() (Kind, string, error) {
	l := p.l
	kind := p.o.Kind
	if kind == "" {
		kind = KindDeployment
	}
	if kind != KindDeployment && kind != KindPod {
		return "", "", &OptionError{Field: "Kind", Value: string(kind), Want: []string{string(KindDeployment), string(KindPod)}}
	}
	if p.o.Image == "" {
		return "", "", &OptionError{Field: "Image", Program: p.argv[0]}
	}
	unsupported := func(part, feature, reason string) error {
		return &UnsupportedError{Engine: Kubernetes, Feature: feature, Reason: reason, Part: part}
	}
	if !isDNSLabel(l.Name) {
		return "", "", unsupported("name", fmt.Sprintf("launch name %q", l.Name), "object and container names are DNS labels (lower-case letters, digits and '-', at most 63); rename the launch")
	}
	restart := "Always"
	switch pol := l.Restart.Policy; {
	case kind == KindDeployment && pol == schema.RestartNever:
		return "", "", unsupported("restart.policy", fmt.Sprintf("restart.policy %q", pol), "a Deployment's pods always restart; use --kind pod, whose restartPolicy can be Never")
	case kind == KindPod && (pol == "" || pol == schema.RestartNever):
		restart = "Never"
	case kind == KindPod && pol == schema.RestartOnFailure:
		restart = "OnFailure"
	}
	return kind, restart, nil
}

// k8sRestartNotes are the first notes: the check's, then what the kind
// loses of on-failure, depends_on and the restart limit and backoff.
func (p *plan) k8sRestartNotes(kind Kind) []string {
	l := p.l
	var notes []string
	notes = append(notes, p.checkNotes...)
	if kind == KindDeployment && l.Restart.Policy == schema.RestartOnFailure {
		notes = append(notes, `restart.policy "on-failure": a Deployment restarts its pod after every exit, a clean one too (restartPolicy Always); export with --kind pod for OnFailure.`)
	}
	if len(l.DependsOn) > 0 {
		notes = append(notes, fmt.Sprintf("depends_on (%s): Kubernetes does not order Deployments; export and apply them too, and let the worker retry until they are ready.", strings.Join(l.DependsOn, ", ")))
	}
	if l.Restart.Policy != "" && l.Restart.Policy != schema.RestartNever {
		notes = append(notes, fmt.Sprintf("restart max %d and backoff %s are not expressible: the kubelet restarts with its own back-off (10s doubling to 5m), without a limit.", l.Restart.EffectiveMax(), l.Restart.EffectiveBackoff()))
	}
	return notes
}

// k8sContainer renders the worker's container without its environment
// and probes: command and args, working directory, securityContext and
// ports, appending to notes what they lose.
func (p *plan) k8sContainer(notes []string) (k8sContainer, []string) {
	l := p.l
	// Kubernetes expands $(NAME) in command and args from the container's
	// env (and reduces $$ to $): every $ is doubled, and an env() in an
	// argument becomes $(NAME), supplied by a secretKeyRef.
	argv := p.renderArgv(func(n string) string { return "$(" + n + ")" },
		func(s string) string { return strings.ReplaceAll(s, "$", "$$") })
	if len(p.argRefs) > 0 {
		notes = append(notes, fmt.Sprintf("%s: read by an argument as $(NAME), so the container's env has %s too (under childproof run only the argument would).", strings.Join(p.argRefs, ", "), plural(len(p.argRefs), "it", "them")))
	}
	c := k8sContainer{Name: l.Name, Image: p.o.Image, Command: argv[:1], Args: argv[1:], WorkingDir: p.dir}
	c.SecurityContext, notes = k8sRunAs(l, notes)
	for _, pt := range l.Ports {
		kp := k8sPort{ContainerPort: pt.Number, Protocol: "TCP"}
		if isPortName(pt.Name) {
			kp.Name = pt.Name
		}
		c.Ports = append(c.Ports, kp)
		if a := pt.PortAddress(); a == "127.0.0.1" || a == "::1" {
			notes = append(notes, fmt.Sprintf("port %q binds %s: only the pod itself reaches it; a Service needs the worker on the pod's address (0.0.0.0 with allow_all_interfaces = true).", pt.Name, a))
		}
	}
	return c, notes
}

// k8sEnv renders the container's environment: the env file as a Secret
// under envFrom, the literal variables, and the secrets as secretKeyRefs
// to the Secret named after the launch, with notes on creating both.
func (p *plan) k8sEnv(c *k8sContainer, notes []string) []string {
	l := p.l
	envFileSecret := l.Name + "-env-file"
	if p.envFile != "" {
		c.EnvFrom = append(c.EnvFrom, k8sEnvFrom{SecretRef: k8sLocalRef{Name: envFileSecret}})
		notes = append(notes, fmt.Sprintf("The env file becomes the Secret %s (env wins over envFrom, as overrides win over the env file):", envFileSecret),
			fmt.Sprintf("  kubectl create secret generic %s --from-env-file=%s", envFileSecret, p.envFile),
			"  (kubectl reads NAME=VALUE lines literally: no quotes, no export.)")
	}
	for _, v := range p.literal {
		c.Env = append(c.Env, k8sEnv{Name: v.Name, Value: v.Value})
	}
	for _, n := range p.secrets {
		c.Env = append(c.Env, k8sEnv{Name: n, ValueFrom: &k8sEnvSource{SecretKeyRef: k8sKeyRef{Name: l.Name, Key: n}}})
	}
	if len(p.secrets) > 0 {
		notes = append(notes, fmt.Sprintf("Secrets are references to the Secret %s, keys %s; create it from a file of NAME=VALUE lines:", l.Name, strings.Join(p.secrets, ", ")),
			fmt.Sprintf("  kubectl create secret generic %s --from-env-file=FILE", l.Name))
	}
	slices.SortFunc(c.Env, func(a, b k8sEnv) int { return strings.Compare(a.Name, b.Name) })
	return notes
}

// k8sProbes renders the startup and readiness probes, childproof verify
// on pid 1 (the container's process), the shared volume's mount and,
// with --childproof-image, the init container that copies childproof in;
// it appends the notes on the probes, dispatch and inherit.
func (p *plan) k8sProbes(c *k8sContainer, notes []string) ([]k8sContainer, []string) {
	l := p.l
	prog := p.childproof()
	var inits []k8sContainer
	if p.o.ChildproofImage != "" {
		prog = k8sVolumeDir + "/childproof"
		// Container names are unique within a pod (the API server
		// refuses a duplicate): a launch named childproof keeps its
		// name, the init container takes another.
		initName := "childproof"
		if l.Name == initName {
			initName = "childproof-install"
		}
		inits = append(inits, k8sContainer{
			Name: initName, Image: p.o.ChildproofImage,
			// childproof copies itself: a scratch or distroless image
			// has no cp.
			Command:      []string{"/usr/local/bin/childproof", "install", k8sVolumeDir},
			VolumeMounts: []k8sMount{{Name: "childproof", MountPath: k8sVolumeDir}},
		})
	} else {
		notes = append(notes, fmt.Sprintf("The probes run %s from the image: add it to the image (COPY childproof /usr/local/bin/), or export with --childproof-image to copy it in with an init container.", prog))
	}
	c.VolumeMounts = []k8sMount{{Name: "childproof", MountPath: k8sVolumeDir}}
	check := append([]string{prog, "verify", "--state-dir", k8sVolumeDir + "/state", "--pid", "1"}, p.verify...)
	timeout := l.ReadyTimeout().Seconds()
	c.StartupProbe = &k8sProbe{Exec: &k8sExec{Command: check}, PeriodSeconds: 1, TimeoutSeconds: 5, FailureThreshold: max(1, int(math.Ceil(timeout)))}
	// Three failed probes in a row (Kubernetes' default), not one slow one,
	// make the pod unready.
	c.ReadinessProbe = &k8sProbe{Exec: &k8sExec{Command: check}, PeriodSeconds: 10, TimeoutSeconds: 5, FailureThreshold: 3}
	// The spec's own readiness kind, where Kubernetes has it, is the
	// readiness probe; the startup probe stays childproof verify.
	switch r := l.Ready; {
	case len(r.Exec) > 0 && !p.readyExecSecret():
		c.ReadinessProbe.Exec = &k8sExec{Command: r.Exec}
		notes = append(notes, "The readiness probe runs ready.exec in the container; the startup probe runs childproof verify.")
	case r.HTTP != "" && len(l.Ports) > 0:
		c.ReadinessProbe.Exec, c.ReadinessProbe.HTTPGet = nil, &k8sHTTPGet{Path: r.HTTP, Port: l.Ports[0].Number}
		notes = append(notes, "The readiness probe is ready.http's GET (Kubernetes counts 200–399 as ready); the startup probe runs childproof verify.")
	case r.Log != "":
		notes = append(notes, "ready.log (a line of the worker's output) has no Kubernetes probe: readiness is childproof verify's.")
	}
	notes = append(notes, "The probes run as the container's user: if the worker runs as another user (a dispatch through gosu, su-exec or setpriv), reading its /proc/PID/environ needs CAP_SYS_PTRACE: add securityContext.capabilities.add: [SYS_PTRACE] to the container (not added here: it is a privilege).")
	if len(l.Dispatch) > 0 {
		notes = append(notes, "The dispatch script runs under bash --noprofile --norc; BASH_ENV and ENV must not be set in the image (a pod cannot unset an image's variable).")
	}
	inherit := l.EffectiveInherit()
	notes = append(notes, fmt.Sprintf("inherit (%s): a container has no caller; these come from the image's environment.", strings.Join(inherit, ", ")))
	return inits, notes
}

// k8sObject is the Pod, or the Deployment of one replica whose template
// is that pod, holding the init containers and c with the shared volume.
func (p *plan) k8sObject(kind Kind, restart string, inits []k8sContainer, c k8sContainer) any {
	l := p.l
	spec := k8sPodSpec{RestartPolicy: restart, InitContainers: inits, Containers: []k8sContainer{c},
		Volumes: []k8sVolume{{Name: "childproof"}}, TerminationGracePeriodSeconds: p.k8sGrace()}
	labels := map[string]string{"app.kubernetes.io/name": l.Name, "app.kubernetes.io/managed-by": "childproof"}
	meta := k8sMeta{Name: l.Name, Labels: labels}
	if kind == KindPod {
		return k8sPod{APIVersion: "v1", Kind: "Pod", Metadata: meta, Spec: spec}
	}
	return k8sDeployment{APIVersion: "apps/v1", Kind: "Deployment", Metadata: meta, Spec: k8sDeploymentSpec{
		Replicas: 1,
		Selector: k8sSelector{MatchLabels: map[string]string{"app.kubernetes.io/name": l.Name}},
		Template: k8sPodTemplate{Metadata: k8sMeta{Labels: labels}, Spec: spec},
	}}
}

// k8sComment renders the comment above the object: where it came from,
// what the probes run, the notes, and how to apply it.
func (p *plan) k8sComment(b *strings.Builder, notes []string) {
	commentLine(b, fmt.Sprintf("Generated by childproof export --to k8s from %s.", p.specRef()))
	commentLine(b, "The startup and readiness probes run childproof verify on pid 1, the worker, from its own /proc record.")
	for _, n := range notes {
		commentLine(b, n)
	}
	commentLine(b, "Then: kubectl apply -f THIS_FILE")
}

// isDNSLabel reports whether s is an RFC 1123 label: at most 63 lower-case
// letters, digits and '-', starting and ending with a letter or digit.
func isDNSLabel(s string) bool {
	if s == "" || len(s) > 63 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		alnum := 'a' <= c && c <= 'z' || '0' <= c && c <= '9'
		if !alnum && (c != '-' || i == 0 || i == len(s)-1) {
			return false
		}
	}
	return true
}

// isPortName reports whether s is a valid container port name (IANA
// service name: at most 15 of a-z, 0-9 and '-', a letter among them, no
// leading, trailing or double '-').
func isPortName(s string) bool {
	if len(s) > 15 || !isDNSLabel(s) || strings.Contains(s, "--") {
		return false
	}
	return strings.ContainsAny(s, "abcdefghijklmnopqrstuvwxyz")
}

// k8sRunAs is the container's securityContext for the spec's user and
// group: Kubernetes takes numeric ids only, so a name is resolved on this
// machine (with a note: the image's database may differ) or left to a note.
func k8sRunAs(l *schema.Launch, notes []string) (*k8sSecurityContext, []string) {
	if l.User == "" && l.Group == "" {
		return nil, notes
	}
	sc := &k8sSecurityContext{}
	id := func(what, name string, lookup func(string) (string, error)) *int64 {
		if n, err := strconv.ParseInt(name, 10, 64); err == nil {
			return &n
		}
		s, err := lookup(name)
		if err != nil {
			notes = append(notes, fmt.Sprintf("%s = %q does not resolve to a numeric id on this machine, and securityContext takes ids only: set %s by hand.", what, name, map[string]string{"user": "runAsUser", "group": "runAsGroup"}[what]))
			return nil
		}
		n, _ := strconv.ParseInt(s, 10, 64)
		notes = append(notes, fmt.Sprintf("%s = %q is id %d on the machine that exported this: check that the image's /etc/%s says the same.", what, name, n, map[string]string{"user": "passwd", "group": "group"}[what]))
		return &n
	}
	if l.User != "" {
		sc.RunAsUser = id("user", l.User, func(s string) (string, error) {
			u, err := user.Lookup(s)
			if err != nil {
				return "", err
			}
			if l.Group == "" {
				if g, err := strconv.ParseInt(u.Gid, 10, 64); err == nil {
					sc.RunAsGroup = &g
				}
			}
			return u.Uid, nil
		})
	}
	if l.Group != "" {
		sc.RunAsGroup = id("group", l.Group, func(s string) (string, error) {
			g, err := user.LookupGroup(s)
			if err != nil {
				return "", err
			}
			return g.Gid, nil
		})
	}
	return sc, notes
}
