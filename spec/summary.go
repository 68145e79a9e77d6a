package spec

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
	"sync"
)

// Placeholders a Summary shows in place of a value it must not show.
const (
	// HiddenValue stands for a value that came from env() or file().
	HiddenValue = "<from env>"
	// UnsetValue stands for an argv element that is an env() of a
	// variable the caller did not set (LoadOptions.LaunchesNothing).
	UnsetValue = "<from the caller, not set here>"
)

// Shown is one part of a launch as a Summary shows it: its value, or
// HiddenValue when the value came from env() or file(). It is plain data,
// safe for concurrent use while no one changes it.
type Shown struct {
	// Value is the part's value as the spec gives it; "" when Hidden or
	// not set.
	Value string
	// Hidden is set when the value came from env() or file()
	// (Launch.Sensitive): it is shown as HiddenValue.
	Hidden bool
}

// String is the part as shown: Value, or HiddenValue.
func (s Shown) String() string {
	if s.Hidden {
		return HiddenValue
	}
	return s.Value
}

// Summary is what a launch would run, as `childproof check` shows it:
// names and placeholders, never a value that is secret or came from the
// caller's environment or a file. Launch.Summary derives it; the parts a
// summary shows as they are (ports, readiness timeout, restart policy) are
// read from the Launch. It is plain data, safe for concurrent use while no
// one changes it.
type Summary struct {
	// Dispatch is set when Argv is the dispatch script and its arguments
	// (run by bash --noprofile --norc); else Argv is the command.
	Dispatch bool
	// Argv holds each element as shown: UnsetValue for an env() the
	// caller did not set, HiddenValue for one from env() or file(), the
	// mask of the launch's secrets (Launch.Mask: a secret's value shown
	// as <NAME>) where it holds one, else the element shell-quoted when it
	// is not plain.
	Argv []string
	// Dir and EnvFile are the launch's directory and env file ("" when
	// none).
	Dir, EnvFile Shown
	// WorkerComm, WorkerExe and ReadyHTTP are the worker selector's comm
	// and exe and the readiness URL ("" when not set).
	WorkerComm, WorkerExe, ReadyHTTP Shown
	// ReadyExec is ready.exec's program and ReadyLog ready.log's pattern
	// ("" when not set).
	ReadyExec, ReadyLog Shown
	// Secret is the spec's secret list, in its order.
	Secret []string
	// SecretFromEnv are the other names of env, sorted, whose value is
	// secret because env() or file() gives it (Launch.SecretName).
	SecretFromEnv []string
	// Env is every variable name the launch passes, with its sources
	// (Launch.VarSources); EnvErr is the error reading the env file, with
	// its names missing from Env.
	Env    []VarSource
	EnvErr error
}

// Summary derives what a launch would run, names only (Summary).
// environ is the caller's environment (os.Environ), which the inherit
// names and patterns are judged against.
func (l *Launch) Summary(environ []string) Summary {
	s := Summary{Secret: l.Secret}
	key, argv := "command", l.Command
	if len(l.Dispatch) > 0 {
		s.Dispatch, key, argv = true, "dispatch", l.Dispatch
	}
	// A literal that is a secret's value too (the env value of a name in
	// the secret list, written again in command) is shown as <NAME>.
	sec := l.Mask()
	s.Argv = make([]string, len(argv))
	for i, a := range argv {
		part := fmt.Sprintf("%s[%d]", key, i)
		switch masked := sec.Arg(a); {
		case l.Unknown[part]:
			s.Argv[i] = UnsetValue
		case l.Sensitive[part]:
			s.Argv[i] = HiddenValue
		case masked != a:
			s.Argv[i] = masked
		default:
			s.Argv[i] = shellQuote(a)
		}
	}
	shown := func(part, v string) Shown {
		if l.Sensitive[part] {
			return Shown{Hidden: true}
		}
		return Shown{Value: v}
	}
	s.Dir = shown("dir", l.Dir)
	if l.EnvFile != "" {
		s.EnvFile = shown("env_file", l.EnvFile)
	}
	if l.Worker.Comm != "" {
		s.WorkerComm = shown("worker.comm", l.Worker.Comm)
	}
	if l.Worker.Exe != "" {
		s.WorkerExe = shown("worker.exe", l.Worker.Exe)
	}
	if l.Ready.HTTP != "" {
		s.ReadyHTTP = shown("ready.http", l.Ready.HTTP)
	}
	if len(l.Ready.Exec) > 0 {
		s.ReadyExec = shown("ready.exec[0]", l.Ready.Exec[0])
	}
	if l.Ready.Log != "" {
		s.ReadyLog = shown("ready.log", l.Ready.Log)
	}
	for _, n := range slices.Sorted(maps.Keys(l.Env)) {
		if !l.IsSecret(n) && l.SecretName(n) {
			s.SecretFromEnv = append(s.SecretFromEnv, n)
		}
	}
	s.Env, s.EnvErr = l.VarSources(environ)
	return s
}

var plainArg = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9_@%+=:,./-]+$`) })

// shellQuote returns s as a shell word: as it is when it is plain, else
// in single quotes.
func shellQuote(s string) string {
	if plainArg().MatchString(s) {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
