package export

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/childproof/childproof/schema"
	"github.com/hashicorp/hcl/v2/hclwrite"
	"github.com/zclconf/go-cty/cty"
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
// into those types.
func (p *plan) nomad() ([]byte, error) {
	l := p.l
	for i, a := range p.argv {
		if strings.Contains(a, "${") {
			return nil, &UnsupportedError{Engine: Nomad, Feature: argvPart(l, i), Part: argvPart(l, i),
				Reason: "Nomad interpolates ${…} in a task's args before launching it; write the argument without ${"}
		}
	}
	for _, v := range p.literal {
		if strings.Contains(v.Value, "${") {
			return nil, &UnsupportedError{Engine: Nomad, Feature: fmt.Sprintf("env[%s]", v.Name), Part: fmt.Sprintf("env[%s]", v.Name),
				Reason: "Nomad interpolates ${…} in env values; write the value without ${"}
		}
	}
	// The names the template takes from Nomad variables: the secret
	// overrides, and what the env file sets that no override replaces.
	var fromVars []string
	fromVars = append(fromVars, p.secrets...)
	shadowed := p.shadowed()
	for _, n := range p.envFileNames {
		if !slices.Contains(shadowed, n) && !slices.Contains(fromVars, n) {
			fromVars = append(fromVars, n)
		}
	}
	slices.Sort(fromVars)

	f := hclwrite.NewEmptyFile()
	root := f.Body()
	job := root.AppendNewBlock("job", []string{l.Name}).Body()
	r := l.Restart
	jobType := "batch" // runs once; a clean exit completes it
	if r.EffectivePolicy() == schema.RestartAlways {
		jobType = "service"
	}
	job.SetAttributeValue("type", cty.StringVal(jobType))
	job.AppendNewline()
	group := job.AppendNewBlock("group", []string{l.Name}).Body()
	group.SetAttributeValue("count", cty.NumberIntVal(1))
	restart := group.AppendNewBlock("restart", nil).Body()
	attempts := 0
	if r.EffectivePolicy() != schema.RestartNever {
		attempts = r.EffectiveMax()
	}
	restart.SetAttributeValue("attempts", cty.NumberIntVal(int64(attempts)))
	restart.SetAttributeValue("delay", cty.StringVal(durationString(r.EffectiveBackoff())))
	// childproof's max counts every restart, Nomad's attempts those within
	// interval: a long interval makes them the same.
	restart.SetAttributeValue("interval", cty.StringVal("8760h"))
	restart.SetAttributeValue("mode", cty.StringVal("fail"))
	resched := group.AppendNewBlock("reschedule", nil).Body()
	resched.SetAttributeValue("attempts", cty.NumberIntVal(0))
	resched.SetAttributeValue("unlimited", cty.False)
	if len(l.Ports) > 0 {
		network := group.AppendNewBlock("network", nil).Body()
		for _, pt := range l.Ports {
			port := network.AppendNewBlock("port", []string{pt.Name}).Body()
			port.SetAttributeValue("static", cty.NumberIntVal(int64(pt.Number)))
		}
	}
	group.AppendNewline()
	task := group.AppendNewBlock("task", []string{l.Name}).Body()
	task.SetAttributeValue("driver", cty.StringVal("exec"))
	config := task.AppendNewBlock("config", nil).Body()
	config.SetAttributeValue("command", cty.StringVal(p.argv[0]))
	if len(p.argv) > 1 {
		config.SetAttributeValue("args", stringList(p.argv[1:]))
	}
	config.SetAttributeValue("work_dir", cty.StringVal(p.dir))
	config.SetAttributeValue("pid_mode", cty.StringVal("private"))
	if len(p.literal) > 0 {
		env := task.AppendNewBlock("env", nil).Body()
		for _, v := range p.literal {
			env.SetAttributeValue(v.Name, cty.StringVal(v.Value))
		}
	}
	varPath := "nomad/jobs/" + l.Name
	if len(fromVars) > 0 {
		var data strings.Builder
		fmt.Fprintf(&data, "{{ with nomadVar %q }}\n", varPath)
		for _, n := range fromVars {
			fmt.Fprintf(&data, "%s={{ .%s }}\n", n, n)
		}
		data.WriteString("{{ end }}\n")
		tmpl := task.AppendNewBlock("template", nil).Body()
		tmpl.SetAttributeValue("destination", cty.StringVal(NomadSecretsFile))
		tmpl.SetAttributeValue("env", cty.True)
		// A key missing from the variable would render as "<no value>",
		// present and non-empty: fail instead.
		tmpl.SetAttributeValue("error_on_missing_key", cty.True)
		tmpl.SetAttributeValue("data", cty.StringVal(data.String()))
	}
	service := task.AppendNewBlock("service", nil).Body()
	service.SetAttributeValue("name", cty.StringVal(l.Name))
	if len(l.Ports) > 0 {
		service.SetAttributeValue("port", cty.StringVal(l.Ports[0].Name))
	}
	// Nomad's own service provider has no script checks; Consul's does.
	service.SetAttributeValue("provider", cty.StringVal("consul"))
	check := service.AppendNewBlock("check", nil).Body()
	check.SetAttributeValue("name", cty.StringVal("childproof verify"))
	check.SetAttributeValue("type", cty.StringVal("script"))
	check.SetAttributeValue("command", cty.StringVal(p.childproof()))
	args := append([]string{"verify", "--state-dir", nomadStateDir, "--pid", "1"}, p.verify...)
	check.SetAttributeValue("args", stringList(args))
	check.SetAttributeValue("interval", cty.StringVal("10s"))
	check.SetAttributeValue("timeout", cty.StringVal(durationString(max(5*time.Second, l.ReadyTimeout()))))

	var b strings.Builder
	line := func(s string) { b.WriteString(strings.TrimRight("# "+s, " ") + "\n") }
	line(fmt.Sprintf("Generated by childproof export --to nomad from %s.", p.specRef()))
	line("The service's script check runs childproof verify on pid 1 of the task's private pid namespace,")
	line("the worker, from its own /proc record (script checks need Consul as the service provider).")
	line(fmt.Sprintf("The exec driver runs the task in a chroot: %s and %s must exist inside it", p.argv[0], p.dir))
	line("(the client's chroot_env), and so must childproof (/usr/local/bin is there by default).")
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
	if r.EffectivePolicy() != schema.RestartNever {
		line("Nomad waits delay before every restart; childproof run doubles the wait up to 30s.")
	}
	for _, n := range p.notes {
		line(n)
	}
	line("Then: nomad job run THIS_FILE")
	b.WriteString("\n")
	b.Write(hclwrite.Format(f.Bytes()))
	return []byte(b.String()), nil
}

func putArgs(names []string) string {
	var out []string
	for _, n := range names {
		out = append(out, n+"=…")
	}
	return strings.Join(out, " ")
}

func stringList(ss []string) cty.Value {
	vs := make([]cty.Value, len(ss))
	for i, s := range ss {
		vs[i] = cty.StringVal(s)
	}
	return cty.ListVal(vs)
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
