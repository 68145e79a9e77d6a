package export

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclparse"

	"github.com/childproof/childproof/schema"
)

// Engine is an engine Render writes for; its string is the value of --to.
type Engine string

// The engines.
const (
	Systemd    Engine = "systemd"
	Kubernetes Engine = "k8s"
	Slurm      Engine = "slurm"
	Nomad      Engine = "nomad"
)

// Engines lists the engines Render knows, in the order the docs name them.
var Engines = []Engine{Systemd, Kubernetes, Slurm, Nomad}

// unknownEngine is the error of an engine not in Engines.
func unknownEngine(e Engine) error {
	names := make([]string, len(Engines))
	for i, n := range Engines {
		names[i] = string(n)
	}
	return &OptionError{Field: "Engine", Value: string(e), Want: names}
}

// OptionError reports an Options field Render cannot use: an unknown
// Engine or Kind, a relative Dir, an Image Kubernetes needs and lacks. A
// caller words it in its own terms (the childproof command names its
// flags). It is safe for concurrent use while no one changes its fields.
type OptionError struct {
	// Field is the Options field at fault: "Engine", "Dir", "Kind" or
	// "Image".
	Field string
	// Value is the field's value ("" for a missing Image).
	Value string
	// Want lists the values the field takes (Engine, Kind); nil for
	// the others.
	Want []string
	// Program is, for a missing Image, the program the image must hold.
	Program string
}

// OptionWords name Options' fields in a caller's terms. They are plain
// data, safe for concurrent use while no one changes them.
type OptionWords struct {
	Engine, Dir, Kind, Image string
	// Kubernetes names the choice of the Kubernetes engine.
	Kubernetes string
}

// GoOptionWords are the Go names: Options.Engine, … and the engine k8s.
var GoOptionWords = OptionWords{Engine: "Options.Engine", Dir: "Options.Dir", Kind: "Options.Kind", Image: "Options.Image", Kubernetes: string(Kubernetes)}

// Say is e's message in w's words.
func (e *OptionError) Say(w OptionWords) string {
	switch e.Field {
	case "Engine":
		return fmt.Sprintf("%v %q: %s takes %s", ErrUnknownEngine, e.Value, w.Engine, strings.Join(e.Want, ", "))
	case "Dir":
		return fmt.Sprintf("%s %q: must be an absolute path on the target", w.Dir, e.Value)
	case "Image":
		return fmt.Sprintf("%s needs %s: the container image that holds %s", w.Kubernetes, w.Image, e.Program)
	case "Kind":
		return fmt.Sprintf("%s %q: want %s", w.Kind, e.Value, strings.Join(e.Want, " or "))
	}
	return fmt.Sprintf("Options.%s %q: want %s", e.Field, e.Value, strings.Join(e.Want, " or "))
}

// Error is Say(GoOptionWords).
func (e *OptionError) Error() string { return e.Say(GoOptionWords) }

// Unwrap is ErrUnknownEngine for an unknown Engine, else nil.
func (e *OptionError) Unwrap() error {
	if e.Field == "Engine" {
		return ErrUnknownEngine
	}
	return nil
}

// Options says how to render a launch. They are plain data, safe for
// concurrent use while no one changes them.
type Options struct {
	// Engine is one of Engines.
	Engine Engine
	// Dir rebases the spec's directory: every path under it (dir, the
	// program, the dispatch script, the env file, the spec itself) is
	// written under Dir instead, for a target that keeps the project
	// elsewhere. Empty: paths are written as they are here.
	Dir string
	// Childproof is the childproof program the check runs on the target.
	// Empty means "childproof", found in the target's PATH.
	Childproof string
	// Image is the container image (Kubernetes; required there).
	Image string
	// Kind is the Kubernetes object. Empty means KindDeployment.
	Kind Kind
	// ChildproofImage is an image holding /usr/local/bin/childproof; when
	// set, an init container copies it into a shared volume for the
	// probes (Kubernetes). Empty: the image itself must have childproof.
	ChildproofImage string
}

// UnsupportedError reports a spec feature the engine cannot express. Its
// methods only read it: it is safe for concurrent use while no one changes
// its fields.
type UnsupportedError struct {
	// Engine is the engine (Options.Engine).
	Engine Engine
	// Feature names the spec part, as a spec path ("inherit[1]",
	// "restart.policy", "command[2]").
	Feature string
	// Reason says why, and what to do instead.
	Reason string
	// Part is the spec part at fault as a key of the launch's
	// Ranges.Parts ("inherit[1]", "restart.policy", "name"), for a
	// diagnostic at its source range; empty when no part of the spec is.
	Part string
	// Secret is set when the part's text holds a secret value: the
	// diagnostic names its place but shows no source line.
	Secret bool
	// Subject is Part's source range in the spec (Render sets it from
	// the launch's Ranges.Parts); nil when no part of the spec is at
	// fault or its range is not known.
	Subject *hcl.Range
}

// Diagnostic is e as an HCL diagnostic at its Subject (nil Subject: a
// diagnostic without a place).
func (e *UnsupportedError) Diagnostic() *hcl.Diagnostic {
	return &hcl.Diagnostic{Severity: hcl.DiagError, Summary: fmt.Sprintf("%s cannot express %s", e.Engine, e.Feature),
		Detail: e.Reason, Subject: e.Subject}
}

// Diagnostics is e as `childproof export` reports it: the one
// Diagnostic, and the files that show its source line, the spec file at
// Subject parsed again. files is nil when e has no Subject, or when its
// part holds a secret value (Secret: the diagnostic names the place
// only); a file that does not parse (changed meanwhile) shows no line.
func (e *UnsupportedError) Diagnostics() (diags hcl.Diagnostics, files map[string]*hcl.File) {
	d := e.Diagnostic()
	if d.Subject == nil || e.Secret {
		return hcl.Diagnostics{d}, nil
	}
	p := hclparse.NewParser()
	_, _ = p.ParseHCLFile(d.Subject.Filename)
	return hcl.Diagnostics{d}, p.Files()
}

func (e *UnsupportedError) Error() string {
	return fmt.Sprintf("%s cannot express %s: %s", e.Engine, e.Feature, e.Reason)
}

// ErrUnknownEngine is returned (wrapped, by an *OptionError) for an
// Options.Engine that is not one of Engines.
var ErrUnknownEngine = errors.New("unknown engine")

// Render renders the launch l for o.Engine. The output ends with a newline.
// A spec feature the engine cannot express is an *UnsupportedError whose
// Subject is the part's source range.
func Render(ctx context.Context, l *schema.Launch, o Options) ([]byte, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	out, err := renderPlan(l, o)
	var ue *UnsupportedError
	if errors.As(err, &ue) && ue.Part != "" && ue.Subject == nil {
		if rng, ok := l.Ranges.Parts[ue.Part]; ok {
			r := schema.HCLRange(rng)
			ue.Subject = &r
		}
	}
	return out, err
}

func renderPlan(l *schema.Launch, o Options) ([]byte, error) {
	p, err := newPlan(l, o)
	if err != nil {
		return nil, err
	}
	switch o.Engine {
	case Systemd:
		return p.systemd()
	case Kubernetes:
		return p.kubernetes()
	case Slurm:
		return p.slurm()
	case Nomad:
		return p.nomad()
	}
	return nil, unknownEngine(o.Engine)
}

// envVar is one environment variable the engine sets itself.
type envVar struct {
	Name, Value string
}

// plan is what every engine needs, resolved once: paths rebased, argv
// built, the environment split into what may be written and what must be
// a reference, and the check's arguments.
type plan struct {
	l *schema.Launch
	o Options

	spec string   // the spec file's path on the target
	dir  string   // the working directory on the target
	argv []string // what the engine runs

	// literal are the env overrides that may be written (no secret), by name.
	literal []envVar
	// secrets are the names the engine must supply from a secret store,
	// sorted: the env overrides whose value is a secret, and fromCaller.
	secrets []string
	// fromCaller are the required names only inherit provides: the caller's
	// values, which a service does not have.
	fromCaller []string
	// envFile is the env file's path on the target, empty for none;
	// envFileNames are the names it assigns.
	envFile      string
	envFileNames []string

	// argRefs are the names an env() in the argv reads that no override
	// sets: the engine supplies them like secrets (they reach the worker's
	// environment too, which under run they would not).
	argRefs []string

	// verify are the arguments of `childproof verify` after the pid.
	verify []string
	// checkNotes say what the check after start (verify --pid) does not
	// check; lines for the output's header comment. SLURM's step runs
	// childproof run, which checks everything, so it has none.
	checkNotes []string
}

func newPlan(l *schema.Launch, o Options) (*plan, error) {
	p := &plan{l: l, o: o}
	if !slices.Contains(Engines, o.Engine) {
		return nil, unknownEngine(o.Engine)
	}
	if o.Dir != "" && !path.IsAbs(o.Dir) { // a path on the (Linux) target, wherever export runs
		return nil, &OptionError{Field: "Dir", Value: o.Dir}
	}
	if l.SpecPath != "" {
		p.spec = p.path(l.SpecPath)
	}
	p.dir = p.path(l.Dir)
	unsupported := func(feature, reason string) error {
		return &UnsupportedError{Engine: o.Engine, Feature: feature, Reason: reason, Part: feature}
	}
	if l.Oneshot && o.Engine != Slurm {
		// The engine's check runs childproof verify on a live worker; a
		// oneshot's proof is the block its exec received, which only
		// childproof run (the SLURM step) captures.
		return nil, unsupported("oneshot", "a oneshot is proven on the environment its exec received, which only childproof run captures, and the engine's check (childproof verify) needs a live worker; export --to slurm (its step is childproof run), or run childproof run SPEC:NAME as the engine's command")
	}
	if len(l.Roles) > 0 && o.Engine != Slurm {
		// The engine's check is childproof verify --pid: one worker below
		// the pid, one --comm. It cannot select each role's processes
		// nor say which role owns which port; dropping the roles would
		// check less than the spec says.
		r := l.Roles[0]
		return nil, &UnsupportedError{Engine: o.Engine, Feature: fmt.Sprintf("worker %q", r.Name), Part: fmt.Sprintf("worker[%d]", 0),
			Reason: "worker roles are verified on every process each role selects, and the engine's check (childproof verify --pid) verifies one worker below the pid; export --to slurm (its step is childproof run, which verifies every role), or run childproof run SPEC:NAME as the engine's command"}
	}
	// The SLURM step runs childproof itself, which reads the spec there:
	// secrets and paths stay the spec's business.
	// An env() in an argument becomes the engine's own reference to the
	// variable (systemd ${NAME}, Kubernetes $(NAME), Nomad ${NAME}); the
	// engine supplies it like a secret. A file() value cannot be.
	var argRefs []string
	if o.Engine != Slurm {
		for _, part := range sensitiveParts(l) {
			refs, ok := p.argEnvRefs(part)
			if !ok && len(p.envReferenced(pathPart(l, part))) > 0 {
				return nil, unsupported(part, "its value comes from env(): a path read from the environment on the target, and "+string(o.Engine)+" takes no variable reference there; write the path in the spec (--dir rebases the spec's directory onto the target), or export to slurm, whose step reads the spec on the node")
			}
			if !ok {
				return nil, unsupported(part, "its value comes from file() (or env() outside the argv), a secret, and would have to be written into the output; pass the secret through env (it becomes a reference) or write the value in the spec")
			}
			argRefs = append(argRefs, refs...)
		}
	}
	if o.Engine != Slurm {
		if err := literalSecrets(l, unsupported); err != nil {
			return nil, err
		}
	}
	if len(l.Dispatch) > 0 {
		script := l.Dispatch[0]
		if !filepath.IsAbs(script) {
			script = filepath.Join(l.Dir, script)
		}
		p.argv = append([]string{"/bin/bash", "--noprofile", "--norc", p.path(script)}, l.Dispatch[1:]...)
	} else {
		prog := l.Command[0]
		if strings.Contains(prog, "/") && !filepath.IsAbs(prog) {
			prog = filepath.Join(l.Dir, prog)
		}
		if filepath.IsAbs(prog) {
			prog = p.path(prog)
		}
		p.argv = append([]string{prog}, l.Command[1:]...)
	}
	for _, name := range slices.Sorted(maps.Keys(l.Env)) {
		if isSecretEnv(l, name) {
			p.secrets = append(p.secrets, name)
		} else {
			p.literal = append(p.literal, envVar{Name: name, Value: l.Env[name]})
		}
	}
	if l.EnvFile != "" {
		names, err := l.EnvFileNames()
		if err != nil {
			return nil, err
		}
		p.envFile = p.path(l.EnvFile)
		p.envFileNames = names
	}
	// A required name only inherit provides comes from the caller, and a
	// service has none: it becomes a reference like a secret.
	for _, name := range l.Require {
		if _, ok := l.Env[name]; ok || slices.Contains(p.envFileNames, name) || slices.Contains(p.secrets, name) {
			continue
		}
		p.secrets = append(p.secrets, name)
		p.fromCaller = append(p.fromCaller, name)
	}
	for _, name := range argRefs {
		if !slices.Contains(p.secrets, name) {
			p.secrets = append(p.secrets, name)
			p.argRefs = append(p.argRefs, name)
		}
	}
	slices.Sort(p.secrets)
	slices.Sort(p.argRefs)
	// The check: every protected name, with its value where it may be
	// written; the first port; the worker's comm.
	for _, name := range l.Protected() {
		if v, ok := l.Env[name]; ok && !isSecretEnv(l, name) {
			p.verify = append(p.verify, "--env", name+"="+v)
		} else {
			p.verify = append(p.verify, "--env", name)
		}
	}
	if len(l.Ports) > 0 {
		p.verify = append(p.verify, "--port", strconv.Itoa(l.Ports[0].Number))
		if len(l.Ports) > 1 {
			var rest []string
			for _, pt := range l.Ports[1:] {
				rest = append(rest, strconv.Itoa(pt.Number))
			}
			p.checkNotes = append(p.checkNotes, fmt.Sprintf("The check verifies port %d; verify --pid takes one port, so %s %s not checked.", l.Ports[0].Number, strings.Join(rest, ", "), plural(len(rest), "is", "are")))
		}
	}
	if l.Worker.Comm != "" {
		p.verify = append(p.verify, "--comm", l.Worker.Comm)
	}
	if n := l.Worker.N(); n > 1 && o.Engine != Slurm {
		// A job of N workers: the check verifies each (verify --pid
		// --count N selects them by --comm, as run does).
		if l.Worker.Comm == "" {
			return nil, &UnsupportedError{Engine: o.Engine, Feature: "worker.count", Part: "worker.count",
				Reason: "a job's workers are verified on every one of them, and the engine's check (childproof verify --pid --count N) selects them by their comm, which this worker block does not name (it names an exe); add comm to the worker block, export --to slurm (its step is childproof run), or run childproof run SPEC:NAME as the engine's command"}
		}
		p.verify = append(p.verify, "--count", strconv.Itoa(n))
	}
	if l.Ready.HTTP != "" && len(l.Ports) > 0 {
		p.checkNotes = append(p.checkNotes, fmt.Sprintf("The check connects to port %d; verify --pid has no HTTP check, so ready.http (GET %s) is not part of it.", l.Ports[0].Number, l.Ready.HTTP))
	}
	if l.Worker.Exe != "" {
		p.checkNotes = append(p.checkNotes, "The check finds the worker by its port (or as the deepest process); verify --pid has no --exe, so worker.exe is not compared.")
	}
	return p, nil
}

// path rebases an absolute local path under the spec's directory onto
// o.Dir, a path on the target.
func (p *plan) path(abs string) string {
	if p.o.Dir == "" || p.l.SpecPath == "" {
		return abs
	}
	rel, err := filepath.Rel(filepath.Dir(p.l.SpecPath), abs)
	if err != nil {
		return abs
	}
	// rel is a local path (backslashes on Windows); o.Dir is on the target.
	rel = filepath.ToSlash(rel)
	if rel == ".." || strings.HasPrefix(rel, "../") {
		return abs
	}
	return path.Join(p.o.Dir, rel)
}

// childproof returns the program the check runs.
func (p *plan) childproof() string {
	if p.o.Childproof != "" {
		return p.o.Childproof
	}
	return "childproof"
}

// shadowed returns the env file's names that an override replaces.
func (p *plan) shadowed() []string {
	var out []string
	for _, n := range p.envFileNames {
		if _, ok := p.l.Env[n]; ok {
			out = append(out, n)
		}
	}
	return out
}

// isSecretEnv reports whether the override of name is a secret: its value
// came from env() or file(), or the name is in the launch's secret list.
func isSecretEnv(l *schema.Launch, name string) bool {
	return l.Sensitive["env["+name+"]"] || l.IsSecret(name)
}

// literalSecrets refuses a literal of the spec that holds a secret value
// known from the spec itself — the env value of a name in the secret
// list, or a value of the env file, written again in command, dispatch or
// another env value: the output would hold it, under a header saying no
// secret value is in the file (contract §6). The error names the part
// and the secret, never the value.
func literalSecrets(l *schema.Launch, unsupported func(feature, reason string) error) error {
	sec := l.Mask()
	if sec.Empty() {
		return nil
	}
	name := func(masked string) string {
		if i := strings.IndexByte(masked, '<'); i >= 0 {
			if j := strings.IndexByte(masked[i:], '>'); j > 0 {
				return masked[i+1 : i+j]
			}
		}
		return "a secret"
	}
	refuse := func(part, masked string) error {
		n := name(masked)
		err := unsupported(part, fmt.Sprintf("it holds the value of %s, a secret (a name in the secret list, or a value of the env file), which would be written into the output; write a reference instead: take it from the environment in the worker (env = { %s = … } and read $%s there, or a dispatch script that passes \"$%s\")", n, n, n, n))
		var ue *UnsupportedError
		if errors.As(err, &ue) {
			ue.Secret = true
		}
		return err
	}
	for _, argv := range []struct {
		key  string
		args []string
	}{{"command", l.Command}, {"dispatch", l.Dispatch}} {
		for i, a := range argv.args {
			key := fmt.Sprintf("%s[%d]", argv.key, i)
			if !l.Sensitive[key] && sec.Contains(a) {
				return refuse(key, sec.Arg(a))
			}
		}
	}
	for _, n := range slices.Sorted(maps.Keys(l.Env)) {
		if v := l.Env[n]; !isSecretEnv(l, n) && sec.Contains(v) {
			return refuse("env["+n+"]", sec.Arg(v))
		}
	}
	return nil
}

// sensitiveParts lists the launch's parts other than env values whose
// value came from env() or file(), sorted.
func sensitiveParts(l *schema.Launch) []string {
	var out []string
	for k, v := range l.Sensitive {
		if v && !strings.HasPrefix(k, "env[") {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}

// pathPart returns the value of a launch's path part (dir, env_file,
// dispatch[0], worker.exe, worker.comm); "" for any other part.
func pathPart(l *schema.Launch, part string) string {
	switch part {
	case "dir":
		return l.Dir
	case "env_file":
		return l.EnvFile
	case "worker.exe":
		return l.Worker.Exe
	case "worker.comm":
		return l.Worker.Comm
	case "dispatch[0]":
		if len(l.Dispatch) > 0 {
			return l.Dispatch[0]
		}
	}
	return ""
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// specRef returns the spec path and launch name as a SPEC:NAME argument.
func (p *plan) specRef() string {
	return p.spec + ":" + p.l.Name
}

// LookupEnv answers env(NAME) while a spec is loaded for export (pass it as
// schema.LoadOptions.LookupEnv): every name is "set" to a placeholder, so
// every env() — with or without a default — is a secret reference the
// engine resolves, and no value of the caller's environment is read.
func LookupEnv(name string) (string, bool) {
	return "<env " + name + ">", true
}

// envRefs lists, sorted, the variables this launch's env() calls read (the
// file's other launches' are not its business): while a spec is loaded for
// export every env(NAME) is the placeholder LookupEnv gives, found here in
// the launch's values.
func (p *plan) envRefs() []string {
	l := p.l
	var values []string
	for _, v := range l.Env {
		values = append(values, v)
	}
	values = append(values, l.Command...)
	values = append(values, l.Dispatch...)
	values = append(values, l.Dir, l.EnvFile, l.Worker.Comm, l.Worker.Exe)
	var out []string
	for _, s := range l.SecretValues {
		if strings.HasPrefix(s.Name, "file:") || slices.Contains(out, s.Name) {
			continue
		}
		ph, _ := LookupEnv(s.Name)
		for _, v := range values {
			if strings.Contains(v, ph) {
				out = append(out, s.Name)
				break
			}
		}
	}
	slices.Sort(out)
	return out
}

// argEnvRefs reports, for a sensitive part of the launch, whether it is an
// argv element whose secret parts are all env() references (no file()
// contents), and the names it reads.
func (p *plan) argEnvRefs(part string) ([]string, bool) {
	l := p.l
	var v string
	var i int
	switch {
	case strings.HasPrefix(part, "command[") && len(l.Dispatch) == 0:
		if _, err := fmt.Sscanf(part, "command[%d]", &i); err != nil || i < 0 || i >= len(l.Command) {
			return nil, false
		}
		v = l.Command[i]
	case strings.HasPrefix(part, "dispatch["):
		if _, err := fmt.Sscanf(part, "dispatch[%d]", &i); err != nil || i < 1 || i >= len(l.Dispatch) {
			return nil, false // dispatch[0] is the script: a path, written as one
		}
		v = l.Dispatch[i]
	default:
		return nil, false
	}
	var names []string
	for _, s := range l.SecretValues {
		if strings.HasPrefix(s.Name, "file:") {
			if s.Value != "" && strings.Contains(v, s.Value) {
				return nil, false
			}
			continue
		}
		ph, _ := LookupEnv(s.Name)
		if strings.Contains(v, ph) {
			names = append(names, s.Name)
		}
	}
	return names, len(names) > 0
}

// argPieces splits an argv element into literal text and env() references
// (ref non-empty), in order.
func argPieces(s string, refs []string) []argPiece {
	var out []argPiece
	for s != "" {
		best, at := "", -1
		for _, n := range refs {
			ph, _ := LookupEnv(n)
			if i := strings.Index(s, ph); i >= 0 && (at < 0 || i < at) {
				best, at = n, i
			}
		}
		if at < 0 {
			out = append(out, argPiece{lit: s})
			break
		}
		if at > 0 {
			out = append(out, argPiece{lit: s[:at]})
		}
		out = append(out, argPiece{ref: best})
		ph, _ := LookupEnv(best)
		s = s[at+len(ph):]
	}
	return out
}

type argPiece struct{ lit, ref string }

// envReferenced returns the env() names whose placeholder is in s.
func (p *plan) envReferenced(s string) []string {
	var out []string
	for _, sv := range p.l.SecretValues {
		if strings.HasPrefix(sv.Name, "file:") || slices.Contains(out, sv.Name) {
			continue
		}
		if ph, _ := LookupEnv(sv.Name); strings.Contains(s, ph) {
			out = append(out, sv.Name)
		}
	}
	return out
}

// renderArgv renders the argv for an engine: each env() reference as
// ref(NAME), the literal text around it through lit.
func (p *plan) renderArgv(ref, lit func(string) string) []string {
	out := make([]string, len(p.argv))
	for i, a := range p.argv {
		var w strings.Builder
		for _, pc := range argPieces(a, p.envReferenced(a)) {
			if pc.ref != "" {
				w.WriteString(ref(pc.ref))
			} else {
				w.WriteString(lit(pc.lit))
			}
		}
		out[i] = w.String()
	}
	return out
}

// readyExecSecret reports whether an element of ready.exec is a secret
// (from env() or file()): such a command is not written into a file.
func (p *plan) readyExecSecret() bool {
	for i := range p.l.Ready.Exec {
		if p.l.Sensitive[fmt.Sprintf("ready.exec[%d]", i)] {
			return true
		}
	}
	return false
}
