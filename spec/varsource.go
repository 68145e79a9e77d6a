package spec

import (
	"maps"
	"slices"
	"strings"
)

// VarOrigin is a source a launch takes variable values from.
type VarOrigin string

// The sources of a launch's variables, in precedence order: env wins over
// env_file, which wins over inherit.
const (
	// FromEnv is the spec's env (run --set adds to it).
	FromEnv VarOrigin = "override"
	// FromEnvFile is the launch's env_file.
	FromEnvFile VarOrigin = "env_file"
	// FromInherit is a name in inherit, passed from the caller.
	FromInherit VarOrigin = "inherit"
	// FromInheritPattern is a glob pattern in inherit ("CUDA_*"): every
	// caller variable it matches is passed.
	FromInheritPattern VarOrigin = "inherit pattern"
)

// VarSource says where a launch takes one variable's value from. It names
// no value. It is plain data, safe for concurrent use while no one changes
// it.
type VarSource struct {
	// Name is the variable's name, or an inherit pattern.
	Name string
	// From lists every source that names it, without repeats, the one
	// whose value wins first.
	From []VarOrigin
	// Matches is, for an inherit pattern, how many variables of the
	// caller's environment it passes (BASH_ENV and ENV do not count);
	// zero otherwise.
	Matches int
	// Unknown is set when the winning source is env and its value is an
	// env() of a variable unset where the spec was loaded
	// (LoadOptions.LaunchesNothing): the caller gives it at launch.
	Unknown bool
	// Unset is set when inherit is the only source and the caller has no
	// such variable: nothing is passed.
	Unset bool
	// Removed is set for BASH_ENV and ENV: they are removed before launch
	// whatever the sources say (a shell would run the files they name).
	Removed bool
}

// VarSources returns every variable name (and inherit pattern) l passes a
// value for, sorted, each with its sources in precedence order (env, then
// env_file, then inherit). environ is the caller's environment
// (NAME=VALUE entries, as os.Environ): the inherit names and patterns are
// judged against it. When the env file cannot be read, its names are
// missing and the error is returned with the rest.
func (l *Launch) VarSources(environ []string) ([]VarSource, error) {
	from := map[string][]VarOrigin{}
	add := func(name string, o VarOrigin) {
		if !slices.Contains(from[name], o) {
			from[name] = append(from[name], o)
		}
	}
	for n := range l.Env {
		add(n, FromEnv)
	}
	fileNames, err := l.EnvFileNames()
	for _, n := range fileNames {
		add(n, FromEnvFile)
	}
	caller := map[string]bool{}
	for _, kv := range environ {
		if n, _, ok := strings.Cut(kv, "="); ok {
			caller[n] = true
		}
	}
	matches := map[string]int{}
	for _, p := range l.EffectiveInherit() {
		if !IsInheritPattern(p) {
			add(p, FromInherit)
			continue
		}
		add(p, FromInheritPattern)
		matches[p] = 0
		for n := range caller {
			if !slices.Contains(RemovedVars, n) && matchInherit(p, n) {
				matches[p]++
			}
		}
	}
	out := make([]VarSource, 0, len(from))
	for _, n := range slices.Sorted(maps.Keys(from)) {
		s := VarSource{Name: n, From: from[n], Matches: matches[n], Removed: slices.Contains(RemovedVars, n)}
		s.Unknown = s.From[0] == FromEnv && l.Unknown["env["+n+"]"]
		s.Unset = len(s.From) == 1 && s.From[0] == FromInherit && !caller[n]
		out = append(out, s)
	}
	return out, err
}

// RemovedVars are dropped from a dispatch script's environment whatever
// the spec says: bash would source the files they name.
var RemovedVars = []string{"BASH_ENV", "ENV"}
