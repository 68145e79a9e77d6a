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
}

// FieldProblem is one broken rule of a Launch.
type FieldProblem struct {
	Field, Summary, Detail string
}

func (e *InvalidError) Error() string {
	parts := make([]string, len(e.Problems))
	for i, p := range e.Problems {
		parts[i] = p.Field + ": " + p.Detail
	}
	return fmt.Sprintf("launch %q is invalid: %s", e.Launch, strings.Join(parts, "; "))
}

// Validate checks a Launch by the rules a spec file's launch block is
// checked by, for a Launch built in Go. Zero values stand for the
// defaults, as they do everywhere in a Launch (a port's name may be
// empty). It returns nil or an *InvalidError.
func (l *Launch) Validate() error {
	r := &rawLaunch{
		Name: l.Name, Command: l.Command, Dispatch: l.Dispatch, Dir: l.Dir, EnvFile: l.EnvFile,
		Inherit: l.Inherit, Env: l.Env, Require: l.Require, ForbidWrappers: l.ForbidWrappers,
		Secret: l.Secret, DependsOn: l.DependsOn, OnStale: l.OnStale, Volatile: l.Volatile,
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
	if l.Ready != (Ready{}) {
		r.Ready = &rawReady{HTTP: l.Ready.HTTP}
		if l.Ready.Timeout != 0 {
			r.Ready.Timeout = l.Ready.Timeout.String()
		}
	}
	if l.Restart != (Restart{}) {
		r.Restart = &rawRestart{Policy: l.Restart.EffectivePolicy()}
		if l.Restart.Max != 0 {
			r.Restart.Max = &l.Restart.Max
		}
		if l.Restart.Backoff != 0 {
			r.Restart.Backoff = l.Restart.Backoff.String()
		}
	}
	if l.Slurm != (Slurm{}) {
		r.Slurm = &rawSlurm{Partition: l.Slurm.Partition, Gres: l.Slurm.Gres, Time: l.Slurm.Time}
	}
	fps := validateLaunch(r, nil)
	if len(fps) == 0 {
		return nil
	}
	e := &InvalidError{Launch: l.Name}
	for _, fp := range fps {
		e.Problems = append(e.Problems, FieldProblem{Field: fp.ns, Summary: fp.summary, Detail: fp.detail})
	}
	return e
}
