package schema

import (
	"fmt"
	"strings"
)

// InvalidError is a Launch that breaks the spec language's rules: each
// problem names the field ("port[0].number") and says what is wrong, in
// the words a spec's diagnostics use.
type InvalidError struct {
	Launch   string
	Problems []FieldProblem
	// GoNames renders the fields by their Go names (Ports[0].Number,
	// Ready.Timeout), for a caller that built the Launch in Go; false:
	// the spec language's (port[0].number, ready.timeout).
	GoNames bool
}

// FieldProblem is one broken rule of a Launch.
type FieldProblem struct {
	Field, Summary, Detail string
}

func (e *InvalidError) Error() string {
	parts := make([]string, len(e.Problems))
	for i, p := range e.Problems {
		if e.GoNames {
			parts[i] = GoField(p.Field) + ": " + goDetail(p.Detail)
			continue
		}
		parts[i] = p.Field + ": " + p.Detail
	}
	return fmt.Sprintf("launch %q is invalid: %s", e.Launch, strings.Join(parts, "; "))
}

// GoField names a field path of the spec language ("port[0].number",
// "ready.timeout", "env[NAME]", "worker.comm") by the Go fields of Launch
// ("Ports[0].Number", "Ready.Timeout", "Env[NAME]", "Worker.Comm").
func GoField(path string) string {
	var b strings.Builder
	for i, seg := range strings.Split(path, ".") {
		if i > 0 {
			b.WriteByte('.')
		}
		name, index, _ := strings.Cut(seg, "[")
		if name == "port" {
			name = "ports"
		}
		for _, w := range strings.Split(name, "_") {
			if w != "" {
				b.WriteString(strings.ToUpper(w[:1]) + w[1:])
			}
		}
		if index != "" {
			b.WriteString("[" + index)
		}
	}
	out := b.String()
	for spec, goName := range goFieldNames {
		out = strings.ReplaceAll(out, spec, goName)
	}
	return out
}

// goFieldNames are the Go names the snake-to-camel rule does not give.
var goFieldNames = map[string]string{"Http": "HTTP"}

// goDetail rewrites what a problem's detail says in the spec language.
func goDetail(d string) string {
	return strings.ReplaceAll(d, "write allow_all_interfaces = true in this port block", "set AllowAllInterfaces: true in this Port")
}

// Validate checks a Launch by the rules a spec file's launch block is
// checked by, for a Launch built in Go. Zero values stand for the
// defaults, as they do everywhere in a Launch (a port's name may be
// empty). It returns nil or an *InvalidError.
func (l *Launch) Validate() error {
	r := &rawLaunch{
		Name: l.Name, Command: l.Command, Dispatch: l.Dispatch, Dir: l.Dir, EnvFile: l.EnvFile,
		Inherit: l.Inherit, Env: l.Env, Require: l.Require, ForbidWrappers: l.ForbidWrappers,
		Secret: l.Secret, DependsOn: l.DependsOn, OnStale: string(l.OnStale), Volatile: l.Volatile,
		User: l.User, Group: l.Group,
	}
	if l.Attempts != 0 {
		r.Attempts = &l.Attempts
	}
	if l.Worker != (Worker{}) {
		r.Worker = &rawWorker{Comm: l.Worker.Comm, Exe: l.Worker.Exe}
		if l.Worker.Count != 0 {
			r.Worker.Count = &l.Worker.Count
		}
	}
	for _, p := range l.Ports {
		name := p.Name
		if name == "" {
			name = "port"
		}
		r.Ports = append(r.Ports, rawPort{Name: name, Number: p.Number, Address: p.Address, AllowAllInterfaces: p.AllowAllInterfaces})
	}
	if !l.Ready.IsZero() {
		r.Ready = &rawReady{HTTP: l.Ready.HTTP, Exec: l.Ready.Exec, Log: l.Ready.Log, Status: l.Ready.Status}
		if l.Ready.Timeout != 0 {
			r.Ready.Timeout = l.Ready.Timeout.String()
		}
	}
	if l.Restart != (Restart{}) {
		r.Restart = &rawRestart{Policy: string(l.Restart.EffectivePolicy())}
		if l.Restart.Max != 0 {
			r.Restart.Max = &l.Restart.Max
		}
		if l.Restart.Backoff != 0 {
			r.Restart.Backoff = l.Restart.Backoff.String()
		}
	}
	if l.Slurm != (Slurm{}) {
		r.Slurm = &rawSlurm{Partition: l.Slurm.Partition, Gres: l.Slurm.Gres, Time: l.Slurm.Time}
		if l.Slurm.Nodes != 0 {
			r.Slurm.Nodes = &l.Slurm.Nodes
		}
		if l.Slurm.TasksPerNode != 0 {
			r.Slurm.TasksPerNode = &l.Slurm.TasksPerNode
		}
	}
	if l.Stop != (Stop{}) {
		r.Stop = &rawStop{Signal: l.Stop.Signal}
		if l.Stop.Timeout != 0 {
			r.Stop.Timeout = l.Stop.Timeout.String()
		}
	}
	fps := validateLaunch(r, nil)
	if r.Ready != nil {
		fps = append(fps, readyProblems(r.Ready, nil)...)
	}
	fps = append(fps, oneshotProblems(l)...)
	fps = append(fps, roleProblems(l)...)
	if len(fps) == 0 {
		return nil
	}
	e := &InvalidError{Launch: l.Name}
	for _, fp := range fps {
		e.Problems = append(e.Problems, FieldProblem{Field: fp.ns, Summary: fp.summary, Detail: fp.detail})
	}
	return e
}
