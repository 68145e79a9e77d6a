package launchenv

import (
	"fmt"
	"os"
	"slices"
	"sort"
	"strings"

	"github.com/childproof/childproof/launcher/failure"
	"github.com/childproof/childproof/launcher/mask"
	"github.com/childproof/childproof/outcome"
	"github.com/childproof/childproof/redact"
	"github.com/childproof/childproof/spec"
	"github.com/childproof/childproof/verify"
)

// alwaysRemoved are never passed to a launch: bash runs $BASH_ENV (and sh
// runs $ENV) before any script, which would bring rc files back.
var alwaysRemoved = []string{"BASH_ENV", "ENV"}

// Env is the resolved environment of a launch. It is plain data, safe for
// concurrent use while no one changes it.
type Env struct {
	// Vars maps every name passed to the launched process to its value.
	Vars map[string]string
	// Overrides are the spec's env plus Options.Set: the values the worker
	// must have.
	Overrides map[string]string
	// Require names variables that must be non-empty on the worker.
	Require []string
	// Removed lists names dropped although a source provided them.
	Removed []string
	// Given maps each required name that is not an override to where
	// its value came from ("inherit" or "env_file"): childproof knows
	// that value too (it passed it), so the worker is compared with it.
	Given map[string]string

	secrets *redact.Set
}

// Secrets returns the mask of the launch's secret set, the values that are
// never printed or stored. mask.SecretSet builds it from the spec's secrets
// (spec.Launch.Secrets), which come from env(), file(), the env file and
// the secret list's env values. It adds the resolved value of every name
// in the secret list and of every --set-secret name. Each comes with its
// keyed digest and where it occurs once the launch built its argv. Every
// output of the launch masks with it, and its log relay masks the tree's
// output with it before the log is written. A nil Env has none.
func (e *Env) Secrets() *redact.Set {
	if e == nil {
		return nil
	}
	return e.secrets
}

// SetSecrets makes s the mask of e's secret set (see Secrets).
func (e *Env) SetSecrets(s *redact.Set) { e.secrets = s }

// List returns Vars as sorted NAME=VALUE strings for exec.
func (e *Env) List() []string {
	out := make([]string, 0, len(e.Vars))
	for k, v := range e.Vars {
		out = append(out, k+"="+v)
	}
	sort.Strings(out)
	return out
}

// Resolve computes a launch's environment: the inherit names from the
// caller (lookup, os.LookupEnv when nil), then the env file, then the
// overrides (spec env, then set). BASH_ENV and ENV are always removed.
//
// inherit entries may be glob patterns ("CUDA_*", "*"): a pattern passes
// every caller variable it matches, listed by os.Environ (the names are
// then looked up through lookup).
func Resolve(l *spec.Launch, set map[string]string, lookup func(string) (string, bool)) (*Env, error) {
	return ResolveFrom(l, set, lookup, nil, true)
}

// ResolveFrom is Resolve with the caller's environment listed by
// environ (NAME=VALUE entries; nil: os.Environ), which inherit patterns
// are matched against. With goCover, a nil Inherit also passes GOCOVERDIR
// (coverage of a `go build -cover` server).
func ResolveFrom(l *spec.Launch, set map[string]string, lookup func(string) (string, bool), environ func() []string, goCover bool) (*Env, error) {
	if lookup == nil {
		lookup = os.LookupEnv
	}
	e := &Env{Vars: map[string]string{}, Overrides: map[string]string{}, Given: map[string]string{}}
	from := map[string]string{}
	inherit := l.EffectiveInherit()
	if l.Inherit == nil && goCover {
		inherit = append(slices.Clone(inherit), "GOCOVERDIR")
	}
	for _, n := range inherit {
		if spec.IsInheritPattern(n) {
			continue
		}
		if v, ok := lookup(n); ok {
			e.Vars[n] = v
		}
	}
	if environ == nil {
		environ = os.Environ
	}
	// pass passes every caller variable whose name match accepts.
	pass := func(match func(string) bool) {
		for _, kv := range environ() {
			n, _, ok := strings.Cut(kv, "=")
			if !ok || n == "" || !match(n) {
				continue
			}
			if v, ok := lookup(n); ok {
				e.Vars[n] = v
			}
		}
	}
	if !l.InheritIsLiteral() {
		pass(l.Inherits)
	}
	// Inside a SLURM job step the step's own variables and the devices
	// SLURM bound to it pass too (spec.SlurmStepInherit): the
	// allocation, not the caller's taste, decides which GPUs the worker
	// may use.
	if spec.InSlurmStep(lookup) {
		pass(spec.IsSlurmStepVar)
	}
	for n := range e.Vars {
		from[n] = "inherit"
	}
	fileVars, err := l.EnvFileVars()
	if err != nil {
		return nil, &failure.Error{Outcome: outcome.Usage, Err: err} // "env_file: …"
	}
	for n, v := range fileVars {
		e.Vars[n] = v
		from[n] = "env_file"
	}
	for k, v := range l.Env {
		e.Vars[k] = v
		e.Overrides[k] = v
	}
	for k, v := range set {
		if !spec.IsEnvName(k) {
			return nil, errorf(outcome.Usage, "%q is not a valid environment variable name (letters, digits and _, not starting with a digit), the same rule as a spec's env", k)
		}
		e.Vars[k] = v
		e.Overrides[k] = v
	}
	for _, n := range alwaysRemoved {
		if _, ok := e.Vars[n]; ok {
			e.Removed = append(e.Removed, n)
			delete(e.Vars, n)
		}
		delete(e.Overrides, n)
	}
	e.Require = append([]string(nil), l.Require...)
	for _, n := range e.Require {
		if _, over := e.Overrides[n]; !over && from[n] != "" && hasKey(e.Vars, n) {
			e.Given[n] = from[n]
		}
	}
	e.secrets = mask.SecretSet(l, e.Vars, nil, nil, nil)
	// A required name that no source gave is refused before anything
	// starts: the worker could only fail verification.
	var missing []string
	for _, n := range l.Require {
		if _, ok := e.Vars[n]; !ok {
			missing = append(missing, n)
		}
	}
	if len(missing) > 0 {
		m := missingOf(l, missing, lookup)
		msg, hint := m.Say(GoWords)
		r := verify.NewReport(l.Name)
		r.Add(verify.KindEnvMissing, "%s", msg)
		r.SetOutcome(outcome.Usage)
		return nil, &failure.Error{Outcome: outcome.Usage, Msg: msg, Hint: hint, Report: r, Fix: failure.FixMissing, Missing: m, Spec: l}
	}
	for k, v := range e.Vars {
		if strings.IndexByte(v, 0) >= 0 {
			return nil, errorf(outcome.Usage, "variable %s: value holds a NUL byte", k)
		}
	}
	return e, nil
}

// Expect returns the environ expectations of e: the overrides' values and
// the value passed for every required name (from inherit or the env
// file), each compared on the worker.
func (e *Env) Expect() verify.Expect {
	if len(e.Given) == 0 {
		return verify.Expect{Values: e.Overrides, Require: e.Require}
	}
	vals := make(map[string]string, len(e.Overrides)+len(e.Given))
	for n, v := range e.Overrides {
		vals[n] = v
	}
	for n := range e.Given {
		vals[n] = e.Vars[n]
	}
	return verify.Expect{Values: vals, Require: e.Require, Sources: e.Given}
}

// missingOf sorts the required names missing by the source that would
// have given each. A name set in the caller that inherit does not pass
// needs inherit (or env): exporting it cannot help. A name inherit
// passes but the caller lacks needs an export (or env). A name no source
// names at all needs env (or inherit and an export).
func missingOf(l *spec.Launch, missing []string, lookup func(string) (string, bool)) *failure.Missing {
	m := &failure.Missing{Names: missing, Inherit: l.EffectiveInherit(), DefaultInherit: l.Inherit == nil}
	for _, n := range missing {
		_, set := lookup(n)
		switch {
		case set:
			m.NotPassed = append(m.NotPassed, n)
		case l.Inherits(n):
			m.Unset = append(m.Unset, n)
		default:
			m.Unnamed = append(m.Unnamed, n)
		}
	}
	return m
}

// GoWords are the failure.Words of a launch built in Go.
var GoWords = failure.Words{Inherit: "Inherit", Env: "Env", EnvFile: "EnvFile", Export: "set (t.Setenv in a test)", User: "User ", Group: "Group "}

// hasKey reports whether m has k.
func hasKey[V any](m map[string]V, k string) bool {
	_, ok := m[k]
	return ok
}

// errorf is a failure.Error of kind o with a formatted message.
func errorf(o outcome.Kind, format string, args ...any) *failure.Error {
	return &failure.Error{Outcome: o, Msg: fmt.Sprintf(format, args...)}
}
