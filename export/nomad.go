package export

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/childproof/childproof/internal/hcltext"
	"github.com/childproof/childproof/schema"
)

// NomadSecretsFile is where the task's template writes the secret
// environment (inside the task's secrets/ directory, never on shared disk).
const NomadSecretsFile = "secrets/childproof.env"

// nomadStateDir is the state dir of the script check, inside the task.
const nomadStateDir = "/local/childproof"

// nomad renders a job (Nomad's job specification, HCL) whose task runs the
// worker with the exec driver in a private pid namespace, so the worker is
// pid 1 there, and whose service's script check runs childproof verify.
// The block and attribute names are those of
// github.com/hashicorp/nomad/api's hcl tags; the tests decode the output
// into those types. The output is the comment (nomadComment), a blank
// line and the job (nomadJob).
func (p *plan) nomad() ([]byte, error) {
	if err := p.nomadInterpolated(); err != nil {
		return nil, err
	}
	fromVars := p.nomadFromVars()
	varPath := "nomad/jobs/" + p.l.Name
	var w hcltext.Writer
	p.nomadJob(&w, fromVars, varPath)
	var b strings.Builder
	b.WriteString(p.nomadComment(fromVars, varPath))
	b.WriteString("\n")
	b.Write(w.Bytes())
	return []byte(b.String()), nil
}

// nomadInterpolated is the *UnsupportedError for the first argument, then
// the first literal env value, holding "${", which Nomad would interpolate;
// nil when none does.
func (p *plan) nomadInterpolated() error {
	for i, a := range p.argv {
		if strings.Contains(a, "${") {
			return &UnsupportedError{Engine: Nomad, Feature: argvPart(p.l, i), Part: argvPart(p.l, i),
				Reason: "Nomad interpolates ${…} in a task's args before launching it; write the argument without ${"}
		}
	}
	for _, v := range p.literal {
		if strings.Contains(v.Value, "${") {
			return &UnsupportedError{Engine: Nomad, Feature: fmt.Sprintf("env[%s]", v.Name), Part: fmt.Sprintf("env[%s]", v.Name),
				Reason: "Nomad interpolates ${…} in env values; write the value without ${"}
		}
	}
	return nil
}

// nomadFromVars are the names, sorted, the template takes from Nomad
// variables: the secret overrides, and what the env file sets that no
// override replaces.
func (p *plan) nomadFromVars() []string {
	var fromVars []string
	fromVars = append(fromVars, p.secrets...)
	shadowed := p.shadowed()
	for _, n := range p.envFileNames {
		if !slices.Contains(shadowed, n) && !slices.Contains(fromVars, n) {
			fromVars = append(fromVars, n)
		}
	}
	slices.Sort(fromVars)
	return fromVars
}

// nomadJob writes the job stanza: its type (batch, or service when the
// launch restarts always) and its one group, whose restart, reschedule
// and network stanzas come before the task.
func (p *plan) nomadJob(w *hcltext.Writer, fromVars []string, varPath string) {
	l := p.l
	w.Block("job", l.Name)
	jobType := "batch" // runs once; a clean exit completes it
	if l.Restart.EffectivePolicy() == schema.RestartAlways {
		jobType = "service"
	}
	w.Attr("type", hcltext.Quote(jobType))
	w.Blank()
	w.Block("group", l.Name)
	w.Attr("count", hcltext.Int(1))
	p.nomadRestart(w)
	p.nomadNetwork(w)
	w.Blank()
	p.nomadTask(w, fromVars, varPath)
	w.End() // group
	w.End() // job
}

// nomadRestart writes the group's restart stanza, from the launch's
// restart block, and a reschedule stanza that never reschedules.
func (p *plan) nomadRestart(w *hcltext.Writer) {
	r := p.l.Restart
	w.Block("restart")
	attempts := 0
	if r.EffectivePolicy() != schema.RestartNever {
		attempts = r.EffectiveMax()
	}
	w.Attr("attempts", hcltext.Int(attempts))
	w.Attr("delay", hcltext.Quote(durationString(r.EffectiveBackoff())))
	// childproof's max counts every restart, Nomad's attempts those within
	// interval: a long interval makes them the same.
	w.Attr("interval", hcltext.Quote("8760h"))
	w.Attr("mode", hcltext.Quote("fail"))
	w.End()
	w.Block("reschedule")
	w.Attr("attempts", hcltext.Int(0))
	w.Attr("unlimited", hcltext.Bool(false))
	w.End()
}

// nomadNetwork writes the group's network stanza, a static port for each
// of the launch's ports; nothing for a launch without ports.
func (p *plan) nomadNetwork(w *hcltext.Writer) {
	if len(p.l.Ports) == 0 {
		return
	}
	w.Block("network")
	for _, pt := range p.l.Ports {
		w.Block("port", pt.Name)
		w.Attr("static", hcltext.Int(pt.Number))
		w.End()
	}
	w.End()
}

// nomadTask writes the task stanza: the exec driver and user, then its
// config, env, template and service stanzas.
func (p *plan) nomadTask(w *hcltext.Writer, fromVars []string, varPath string) {
	w.Block("task", p.l.Name)
	w.Attr("driver", hcltext.Quote("exec"))
	if p.l.User != "" {
		w.Attr("user", hcltext.Quote(p.l.User))
	}
	p.nomadStop(w)
	p.nomadConfig(w)
	p.nomadEnv(w)
	p.nomadTemplate(w, fromVars, varPath)
	p.nomadService(w)
	w.End() // task
}

// nomadConfig writes the task's config stanza: the command and its args,
// the working directory and the private pid namespace.
func (p *plan) nomadConfig(w *hcltext.Writer) {
	w.Block("config")
	// An env() in an argument is Nomad's own interpolation, ${NAME}, of
	// the task's environment (the template below sets it).
	argv := p.renderArgv(func(n string) string { return "${" + n + "}" }, func(s string) string { return s })
	w.Attr("command", hcltext.Quote(argv[0]))
	if len(argv) > 1 {
		w.Attr("args", hcltext.List(argv[1:]))
	}
	w.Attr("work_dir", hcltext.Quote(p.dir))
	w.Attr("pid_mode", hcltext.Quote("private"))
	w.End()
}

// nomadEnv writes the task's env stanza, the literal (not secret)
// variables; nothing when there are none.
func (p *plan) nomadEnv(w *hcltext.Writer) {
	if len(p.literal) == 0 {
		return
	}
	w.Block("env")
	for _, v := range p.literal {
		w.Attr(v.Name, hcltext.Quote(v.Value))
	}
	w.End()
}

// nomadTemplate writes the task's template stanza, which sets the
// secrets (fromVars) in the task's environment from the Nomad variable at
// varPath, written to NomadSecretsFile; nothing when fromVars is empty.
func (p *plan) nomadTemplate(w *hcltext.Writer, fromVars []string, varPath string) {
	if len(fromVars) == 0 {
		return
	}
	var data strings.Builder
	fmt.Fprintf(&data, "{{ with nomadVar %q }}\n", varPath)
	// toJSON writes the value as a double-quoted string with its
	// newlines, quotes and backslashes escaped, which Nomad's env
	// template reader takes back as it was: unquoted, a newline would
	// end it and a '#' or quote change it.
	for _, n := range fromVars {
		fmt.Fprintf(&data, "%s={{ .%s.Value | toJSON }}\n", n, n)
	}
	data.WriteString("{{ end }}\n")
	w.Block("template")
	w.Attr("destination", hcltext.Quote(NomadSecretsFile))
	w.Attr("env", hcltext.Bool(true))
	// A key missing from the variable would render as "<no value>",
	// present and non-empty: fail instead.
	w.Attr("error_on_missing_key", hcltext.Bool(true))
	w.Attr("data", hcltext.Quote(data.String()))
	w.End()
}

// nomadService writes the task's service stanza: the launch's name, its
// first port, the Consul provider, and the check (nomadCheck).
func (p *plan) nomadService(w *hcltext.Writer) {
	w.Block("service")
	w.Attr("name", hcltext.Quote(p.l.Name))
	if len(p.l.Ports) > 0 {
		w.Attr("port", hcltext.Quote(p.l.Ports[0].Name))
	}
	// Nomad's own service provider has no script checks; Consul's does.
	w.Attr("provider", hcltext.Quote("consul"))
	p.nomadCheck(w)
	p.nomadReadyCheck(w)
	w.End() // service
}

// nomadCheck writes the service's script check, childproof verify on pid
// 1 every 10s, with its check_restart stanza.
func (p *plan) nomadCheck(w *hcltext.Writer) {
	l := p.l
	w.Block("check")
	w.Attr("name", hcltext.Quote("childproof verify"))
	w.Attr("type", hcltext.Quote("script"))
	w.Attr("command", hcltext.Quote(p.childproof()))
	args := append([]string{"verify", "--state-dir", nomadStateDir, "--pid", "1"}, p.verify...)
	w.Attr("args", hcltext.List(args))
	w.Attr("interval", hcltext.Quote("10s"))
	w.Attr("timeout", hcltext.Quote(durationString(max(5*time.Second, l.ReadyTimeout()))))
	// A failing check restarts the task (Nomad otherwise only marks the
	// service unhealthy, and a batch job runs on): three failures in a
	// row, after the ready timeout's grace; the group's restart block
	// then decides, and with no attempts left the task fails.
	w.Block("check_restart")
	w.Attr("limit", hcltext.Int(3))
	w.Attr("grace", hcltext.Quote(durationString(l.ReadyTimeout())))
	w.Attr("ignore_warnings", hcltext.Bool(false))
	w.End()
	w.End() // check
}

// nomadReadyCheck writes the spec's own readiness kind as a second
// check where Nomad has one: ready.exec as a script check, ready.http as
// an http check (2xx); a log line has none.
func (p *plan) nomadReadyCheck(w *hcltext.Writer) {
	l := p.l
	r := l.Ready
	switch {
	case len(r.Exec) > 0 && !p.readyExecSecret():
		w.Block("check")
		w.Attr("name", hcltext.Quote("ready"))
		w.Attr("type", hcltext.Quote("script"))
		w.Attr("command", hcltext.Quote(r.Exec[0]))
		w.Attr("args", hcltext.List(r.Exec[1:]))
		w.Attr("interval", hcltext.Quote("1s"))
		w.Attr("timeout", hcltext.Quote("5s"))
		w.End()
	case r.HTTP != "" && len(l.Ports) > 0:
		w.Block("check")
		w.Attr("name", hcltext.Quote("ready"))
		w.Attr("type", hcltext.Quote("http"))
		w.Attr("path", hcltext.Quote(r.HTTP))
		w.Attr("interval", hcltext.Quote("1s"))
		w.Attr("timeout", hcltext.Quote("2s"))
		w.End()
	}
}

// nomadComment is the comment above the job: how it runs the worker and
// what the client needs, then the notes for this launch (nomadNotes) and
// how to run the job. Each line starts with "# ".
func (p *plan) nomadComment(fromVars []string, varPath string) string {
	var b strings.Builder
	line := func(s string) { commentLine(&b, s) }
	line(fmt.Sprintf("Generated by childproof export --to nomad from %s.", p.specRef()))
	line("The service's script check runs childproof verify on pid 1 of the task's private pid namespace,")
	line("the worker, from its own /proc record (script checks need Consul as the service provider).")
	line(fmt.Sprintf("The exec driver runs the task in a chroot: %s and %s must exist inside it", p.argv[0], p.dir))
	line("(the client's chroot_env), and so must childproof (/usr/local/bin is there by default). A path outside")
	line("the task directory and chroot_env is not there: ship it with an artifact or a volume_mount.")
	line("work_dir needs a Nomad whose exec driver has it (added after 1.9.0, hashicorp/nomad#24249); an older")
	line("client runs the task in the task directory instead.")
	line("A failing check restarts the task (check_restart: 3 failures in a row after the ready timeout), then")
	line("the restart block decides; without check_restart a batch job whose check fails would run on.")
	p.nomadNotes(line, fromVars, varPath)
	line("Then: nomad job run THIS_FILE")
	return b.String()
}

// nomadNotes writes, each with line, what this launch needs done or
// loses on Nomad: the variable to create for the secrets, the dispatch
// script's shell, inherit and depends_on, the restart wait, loopback
// ports, the arguments that read the environment, and the check's notes.
func (p *plan) nomadNotes(line func(string), fromVars []string, varPath string) {
	l := p.l
	if len(fromVars) > 0 {
		line(fmt.Sprintf("No secret value is in this file: the template reads %s from the Nomad variable %s.", strings.Join(fromVars, ", "), varPath))
		line(fmt.Sprintf("Create it first: nomad var put %s %s", varPath, putArgs(fromVars)))
	}
	if len(l.Dispatch) > 0 {
		line("The dispatch script runs under bash --noprofile --norc; BASH_ENV and ENV must not reach the task.")
	}
	line(fmt.Sprintf("inherit (%s): a task has no caller; Nomad builds its environment.", strings.Join(l.EffectiveInherit(), ", ")))
	if len(l.DependsOn) > 0 {
		line(fmt.Sprintf("depends_on (%s): separate jobs are not ordered; export and run them first.", strings.Join(l.DependsOn, ", ")))
	}
	if l.Restart.EffectivePolicy() != schema.RestartNever {
		line("Nomad waits delay before every restart; childproof run doubles the wait up to 30s.")
	}
	for _, pt := range l.Ports {
		if a := pt.PortAddress(); a == "127.0.0.1" || a == "::1" {
			line(fmt.Sprintf("port %q binds %s: the Consul service registers the allocation's address, which the worker does", pt.Name, a))
			line("not listen on: other services cannot reach it (bind 0.0.0.0 with allow_all_interfaces = true to serve them).")
		}
	}
	if len(p.argRefs) > 0 {
		line(fmt.Sprintf("%s: an argument reads %s as ${NAME}, from the template, so the task's environment has %s too.", strings.Join(p.argRefs, ", "), plural(len(p.argRefs), "it", "them"), plural(len(p.argRefs), "it", "them")))
	}
	for _, n := range p.checkNotes {
		line(n)
	}
}

func putArgs(names []string) string {
	var out []string
	for _, n := range names {
		out = append(out, n+"=…")
	}
	return strings.Join(out, " ")
}

// argvPart names argv element i in the spec's terms.
func argvPart(l *schema.Launch, i int) string {
	if len(l.Dispatch) > 0 {
		if i < 3 {
			return "dispatch"
		}
		return fmt.Sprintf("dispatch[%d]", i-3)
	}
	return fmt.Sprintf("command[%d]", i)
}
